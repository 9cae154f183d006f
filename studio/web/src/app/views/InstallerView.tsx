import { useEffect, useState } from 'react';
import { ApiError } from '../api/client';
import { getReferenceRecording, listReferenceRooms, startReferenceRecording, type ReferenceRecording, type ReferenceRoom } from '../api/references';
import { DataTable } from '../components/DataTable';
import { RoomCalibrationTable } from '../components/RoomCalibrationTable';
import { usePolling } from '../hooks/usePolling';
import { SensingLinksPanel } from '../installer/SensingLinksPanel';

/** How often the page asks for the rooms' states and a recording's progress. */
const POLL_MS = 1000;

const figure = (value: number | null, digits: number, unit: string) => (value === null ? '—' : `${value.toFixed(digits)} ${unit}`);

/** The quality check of a recording, one row per link. */
function QualityTable({ recording }: { recording: ReferenceRecording }) {
  if (!recording.quality) return null;
  return (
    <DataTable testId="installer-quality" columns={['Link', 'Packets', 'Rate', 'Power spread (AGC)', 'Noise floor under channel', 'Motion in seconds', 'Check']}>
      {recording.quality.links.map((l) => (
        <tr key={l.link}>
          <td>{l.link}</td>
          <td>{l.packets}</td>
          <td>{figure(l.rate_hz, 1, 'packets/s')}</td>
          <td>{figure(l.power_spread_db, 1, 'dB')}</td>
          <td>{figure(l.snr_db, 1, 'dB')}</td>
          <td>{l.motion_seconds.length ? l.motion_seconds.join(', ') : 'none'}</td>
          <td className={l.problems.length ? 'error' : ''}>{l.problems.length ? l.problems.join('; ') : 'ok'}</td>
        </tr>
      ))}
    </DataTable>
  );
}

/**
 * The installer's page: the sensing links with what each gives and a walk test (SensingLinksPanel);
 * the rooms the running pipeline locates people in, each link's empty-room
 * reference (fresh, stale with how to re-record, or not yet checked), and a guided recording:
 * leave the room, a progress bar, the quality check, the reference stored and in use.
 */
export function InstallerView() {
  const [rooms, setRooms] = useState<ReferenceRoom[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [selected, setSelected] = useState<string>('');
  const [seconds, setSeconds] = useState(30);
  const [recording, setRecording] = useState<ReferenceRecording | null>(null);
  const [refusal, setRefusal] = useState<string | null>(null);

  usePolling(
    listReferenceRooms,
    POLL_MS,
    (r) => {
      setRooms(r);
      setError(null);
    },
    (e) => setError(e instanceof ApiError && e.status === 503 ? 'The pose API has no empty-room references to show: the pose plugin is not loaded.' : e.message),
  );

  // A running recording: follow its progress until it ends.
  useEffect(() => {
    if (!recording || recording.state !== 'recording') return;
    const timer = setInterval(() => {
      getReferenceRecording(recording.recording_id).then(setRecording, (e: Error) => setRefusal(e.message));
    }, POLL_MS);
    return () => clearInterval(timer);
  }, [recording]);

  const room = rooms?.find((r) => r.environment_id === selected) ?? rooms?.[0] ?? null;
  const stale = rooms?.flatMap((r) => r.links.filter((l) => l.status === 'stale')) ?? [];
  const replugged = rooms?.flatMap((r) => r.links.filter((l) => l.verdict === 'replugged')) ?? [];

  const record = () => {
    if (!room) return;
    setRefusal(null);
    startReferenceRecording(room.environment_id, seconds).then(setRecording, (e: Error) => setRefusal(e.message));
  };

  return (
    <div className="wf-page" data-testid="installer-page">
      <h2>Installer</h2>
      <SensingLinksPanel />
      <h3>Empty-room reference (pose.locate)</h3>
      <p className="muted">
        pose.locate compares every packet with a recording of the room with nobody in it. Record it after placing the radios, and again when a link is reported stale. The pipeline must be running: the recording is made from what it receives.
      </p>
      {error ? <p className="error">{error}</p> : null}
      {stale.map((l) => (
        <p key={`${l.environment_id}/${l.link}`} className="wf-warning" data-testid="installer-stale">
          Link <strong>{l.link}</strong> of {l.environment_id}: the empty room changed since its reference was recorded ({figure(l.change_noise_floors, 1, 'noise floors')} as recorded{l.chain_aligned_change_noise_floors == null ? '' : `, ${figure(l.chain_aligned_change_noise_floors, 1, 'noise floors')} with the locator's gain per receive chain`}): furniture moved, a door left open or shut, slow drift, or a radio re-plugged. If the room was empty, record the reference again below.
        </p>
      ))}
      {replugged.map((l) => (
        <p key={`${l.environment_id}/${l.link}`} className="muted" data-testid="installer-replugged">
          Link <strong>{l.link}</strong> of {l.environment_id}: receiver re-plugged (its chain phases changed since the reference: {figure(l.change_noise_floors, 0, 'noise floors')}, {figure(l.chain_aligned_change_noise_floors ?? null, 1, 'noise floors')} with a gain per receive chain). The locator aligns them; no action is needed. Re-record the reference when convenient.
        </p>
      ))}
      {rooms?.length === 0 ? <p className="muted" data-testid="installer-none">No running pipeline locates people with pose.locate, so there is no empty-room reference to record. Start the system pipeline (or a flow with pose.locate), then come back.</p> : null}
      {room ? (
        <>
          <label>
            Environment{' '}
            <select value={room.environment_id} onChange={(e) => setSelected(e.target.value)} data-testid="installer-environment">
              {rooms!.map((r) => (
                <option key={r.environment_id} value={r.environment_id}>
                  {r.environment_id}
                </option>
              ))}
            </select>
          </label>
          <p className="muted">
            Reference: {room.reference_source}
            {room.reference_file ? '' : ' (a new recording is used until the pipeline stops: the flow names no file it may replace)'}
          </p>
          <DataTable testId="installer-links" columns={['Link', 'Reference', 'Change as recorded', "With the locator's gain per chain", 'Still for']}>
            {room.links.map((l) => (
              <tr key={l.link}>
                <td>{l.link}</td>
                <td className={l.status === 'stale' ? 'error' : ''}>{l.status === 'unchecked' ? (l.unchecked_reason ?? 'not checked yet (needs 20 still seconds)') : l.verdict === 'replugged' ? 'receiver re-plugged (locator copes)' : l.status}</td>
                <td>{figure(l.change_noise_floors, 1, 'noise floors')}</td>
                <td>{figure(l.chain_aligned_change_noise_floors ?? null, 1, 'noise floors')}</td>
                <td>{l.still_seconds} s</td>
              </tr>
            ))}
          </DataTable>
          {room.refresh ? (
            <p className="muted" data-testid="installer-refresh">
              Automatic refresh: {room.refresh.enabled ? `on (the room judged empty by ${room.refresh.judges.join(' and ')} and still)` : "off (pose.locate's referenceRefresh.enabled)"}; reference version {room.refresh.version}
              {room.refresh.refreshed_at ? `, last refreshed ${new Date(room.refresh.refreshed_at).toLocaleString()}: ${room.refresh.reason}` : ', never refreshed'}
              {room.refresh.history.length ? ` (${room.refresh.history.length} older version${room.refresh.history.length > 1 ? 's' : ''} kept)` : ''}.
            </p>
          ) : null}
          <p>
            <label>
              Seconds{' '}
              <input type="number" min={5} max={300} value={seconds} onChange={(e) => setSeconds(Number(e.target.value))} style={{ width: 64 }} data-testid="installer-seconds" />
            </label>{' '}
            <button onClick={record} disabled={recording?.state === 'recording'} data-testid="installer-record">
              Record empty room
            </button>
          </p>
        </>
      ) : null}
      {refusal ? <p className="error" data-testid="installer-error">{refusal}</p> : null}
      {rooms?.length ? (
        <>
          <h3>Calibrated rooms: room-trained skeletons</h3>
          <p className="muted">
            A room calibrated with <code>wiflow calibrate</code> has its own pose model, trained on a few labelled minutes of that room. A flow uses it in that room only, through the pose.room node, which finds it in the data directory&apos;s room-pose folder, where the command writes it (unless the node&apos;s roomModels names another folder); pose.locate and uncalibrated rooms give the locator&apos;s mean pose at each person&apos;s position.
          </p>
          <RoomCalibrationTable rooms={rooms} />
        </>
      ) : null}
      {recording ? (
        <div data-testid="installer-recording" data-state={recording.state}>
          {recording.state === 'recording' ? (
            <p className="wf-warning">
              <strong>Leave the room for {recording.seconds} s</strong> and keep doors, fans and pets still.
            </p>
          ) : (
            <p className={recording.state === 'stored' ? '' : 'error'} data-testid="installer-result">
              {recording.state === 'stored' ? `Reference ${recording.message}` : `${recording.state === 'refused' ? 'Refused' : 'Failed'}: ${recording.message}`}
            </p>
          )}
          <progress max={1} value={recording.progress} style={{ width: 320 }} data-testid="installer-progress" /> {Math.round(recording.progress * recording.seconds)} / {recording.seconds} s
          <QualityTable recording={recording} />
        </div>
      ) : null}
    </div>
  );
}
