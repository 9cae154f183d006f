import type { ReactNode } from 'react';

/** A `wf-table` with one header row naming its columns; the body rows are the children. */
export function DataTable({ columns, className, testId, children }: { columns: readonly string[]; className?: string; testId?: string; children: ReactNode }) {
  return (
    <table className={className ? `wf-table ${className}` : 'wf-table'} data-testid={testId}>
      <thead>
        <tr>
          {columns.map((column) => (
            <th key={column}>{column}</th>
          ))}
        </tr>
      </thead>
      <tbody>{children}</tbody>
    </table>
  );
}
