import type { HeldOutFigures, ReferenceRoom } from '../api/references';
import { DataTable } from './DataTable';

const mm = (value: number | null) => (value === null ? '—' : `${Math.round(value)} mm`);

/** The held-out figures of a room model beside the located mean pose, or why there are none. */
function HeldOut({ room }: { room: ReferenceRoom }) {
  const held = room.calibration.held_out;
  if (!held) return <span className="muted">no held-out figures: {room.calibration.held_out_reason}</span>;
  const line = (f: HeldOutFigures) => `MPJPE ${mm(f.mpjpe_mm)}, posture ${mm(f.root_relative_mpjpe_mm)}, PCK@0.2 ${f.pck02 === null ? '—' : f.pck02.toFixed(3)}`;
  return (
    <span>
      network {line(held.room_model)} <span className="muted">(located mean pose: {line(held.located_mean_pose)}; {held.room_model.estimates} estimates)</span>
    </span>
  );
}

/** What the room emits and the held-out figure of each candidate it was chosen from. */
function Choice({ room }: { room: ReferenceRoom }) {
  const choice = room.calibration.choice;
  if (!choice) return <span data-testid="installer-calibration-choice">uses the network <span className="muted">(written before the calibration chose what the room emits)</span></span>;
  const unit = choice.metric === 'mpjpe_mm' ? (v: number | null) => mm(v) : (v: number | null) => (v === null ? '—' : `${v.toFixed(1)} px`);
  return (
    <span data-testid="installer-calibration-choice" data-uses={choice.uses}>
      uses {choice.uses} <span className="muted">(held-out {choice.metric === 'mpjpe_mm' ? 'MPJPE' : 'reprojection'} on {choice.held_out_count}: located mean posture {unit(choice.figures.located_mean_posture)}, network posture {unit(choice.figures.network_posture)}, network {unit(choice.figures.network)})</span>
    </span>
  );
}

/**
 * Which rooms have their own pose model (`wiflow calibrate`): calibrated with the model, when it
 * was trained, on how many labelled minutes and how it did on a later recording; or not
 * calibrated, with the command that calibrates the room.
 */
export function RoomCalibrationTable({ rooms }: { rooms: ReferenceRoom[] }) {
  return (
    <DataTable testId="installer-calibration" columns={['Room', 'Pose model', 'Held-out figures']}>
      {rooms.map((r) => {
        const c = r.calibration;
        return (
          <tr key={r.environment_id} data-testid="installer-calibration-room" data-environment={r.environment_id} data-calibrated={String(c.calibrated)}>
            <td>{r.environment_id}</td>
            {c.calibrated ? (
              <>
                <td>
                  <span className="tag">calibrated</span> {c.model_id} <span className="muted">sha256 {c.model_hash?.slice(0, 12)}</span>
                  <br />
                  <span className="muted">
                    trained {c.trained_at ? `${c.trained_at.slice(0, 16).replace('T', ' ')} UTC` : 'at an unknown time'}, {c.labelled_minutes === null ? 'unknown' : c.labelled_minutes.toFixed(1)} labelled minutes
                  </span>
                </td>
                <td>
                  <Choice room={r} />
                  <br />
                  <HeldOut room={r} />
                </td>
              </>
            ) : (
              <td colSpan={2}>
                <span className="tag wf-tag-off">not calibrated</span> <span className="muted">{c.message.replace(/^not calibrated: /, '')}</span>
                {c.command ? (
                  <>
                    <br />
                    calibrate it with <code data-testid="installer-calibrate-command">{c.command}</code>
                  </>
                ) : null}
              </td>
            )}
          </tr>
        );
      })}
    </DataTable>
  );
}
