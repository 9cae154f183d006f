import type { JsonSchema, NodeTypeInfo } from '../api/types';

const MASK = '********';

function fieldType(schema: JsonSchema): string {
  if (schema.enum) return 'enum';
  const t = Array.isArray(schema.type) ? schema.type.find((x) => x !== 'null') : schema.type;
  if (t) return t;
  const any = schema.anyOf?.find((s) => s.type && s.type !== 'null');
  return any ? fieldType(any) : 'json';
}

/**
 * A form generated from a node's config JSON Schema: one control per property, secrets
 * masked (write-only: the saved value is never shown), errors inline under their field.
 */
export function ConfigForm({ info, config, errors, onChange }: { info: NodeTypeInfo; config: Record<string, unknown>; errors: Record<string, string>; onChange: (config: Record<string, unknown>) => void }) {
  const properties = info.configSchema.properties ?? {};
  const required = new Set(info.configSchema.required ?? []);
  const set = (key: string, value: unknown) => {
    const next = { ...config };
    if (value === undefined || value === '') delete next[key];
    else next[key] = value;
    onChange(next);
  };
  return (
    <form className="wf-config" data-testid="config-form" onSubmit={(e) => e.preventDefault()}>
      {Object.keys(properties).length === 0 ? <p className="muted">No settings.</p> : null}
      {Object.entries(properties).map(([key, schema]) => {
        const type = fieldType(schema);
        const secret = info.secrets.includes(key) || schema.writeOnly;
        const value = config[key];
        const id = `cfg-${key}`;
        return (
          <label key={key} htmlFor={id} className={errors[key] ? 'invalid' : ''}>
            <span>
              {key}
              {required.has(key) && schema.default === undefined ? ' *' : ''}
            </span>
            {type === 'boolean' ? (
              <input id={id} name={key} type="checkbox" checked={Boolean(value ?? schema.default)} onChange={(e) => set(key, e.target.checked)} />
            ) : type === 'enum' ? (
              <select id={id} name={key} value={String(value ?? schema.default ?? '')} onChange={(e) => set(key, e.target.value)}>
                {!required.has(key) ? <option value="">—</option> : null}
                {(schema.enum ?? []).map((v) => (
                  <option key={String(v)} value={String(v)}>
                    {String(v)}
                  </option>
                ))}
              </select>
            ) : type === 'number' || type === 'integer' ? (
              <input
                id={id}
                name={key}
                type="number"
                step={type === 'integer' ? 1 : 'any'}
                value={value === undefined ? '' : String(value)}
                placeholder={schema.default !== undefined ? String(schema.default) : ''}
                onChange={(e) => set(key, e.target.value === '' ? undefined : Number(e.target.value))}
              />
            ) : type === 'string' ? (
              <input
                id={id}
                name={key}
                type={secret ? 'password' : 'text'}
                autoComplete={secret ? 'new-password' : 'off'}
                value={secret && value === MASK ? '' : String(value ?? '')}
                placeholder={secret && value === MASK ? 'saved (write-only)' : schema.default !== undefined ? String(schema.default) : ''}
                onChange={(e) => set(key, e.target.value)}
              />
            ) : (
              <textarea
                id={id}
                name={key}
                rows={3}
                defaultValue={value === undefined ? '' : JSON.stringify(value, null, 1)}
                placeholder={schema.default !== undefined ? JSON.stringify(schema.default) : 'JSON'}
                onBlur={(e) => {
                  if (e.target.value.trim() === '') return set(key, undefined);
                  try {
                    set(key, JSON.parse(e.target.value));
                  } catch {
                    set(key, e.target.value);
                  }
                }}
              />
            )}
            {schema.description ? <small className="muted">{schema.description}</small> : null}
            {errors[key] ? (
              <small className="error" data-testid={`config-error-${key}`}>
                {errors[key]}
              </small>
            ) : null}
          </label>
        );
      })}
    </form>
  );
}
