import { useEffect, useRef, useState } from 'react';
import { ApiError } from '../api/client';
import { listSensingLinks, type SensingLinkInfo } from '../api/studio';
import { DataTable } from '../components/DataTable';
import { usePolling } from '../hooks/usePolling';
import { mergeRecentStates, tallyPhase, walkTestVerdict, type WalkTestResult } from './walk-test';

/** How often the panel reads the links (their state is per second). */
const POLL_MS = 1000;

const CAPABILITIES = [
  ['movement', 'Movement'],
  ['still_person', 'Still person'],
  ['breathing', 'Breathing'],
  ['falls', 'Falls'],
] as const;

const key = (l: SensingLinkInfo) => `${l.deployment_id}/${l.node}/${l.link}`;

function radio(l: SensingLinkInfo): string {
  if (l.format === null) return `not known yet (${l.packets} packets)`;
  return `${l.format}, ${l.transmit_chains}×${l.receive_chains} chains, ${l.subcarriers} subcarriers`;
}

/** A walk test in progress or done: per link, the link seconds at each phase boundary and the states seen. */
interface WalkTest {
  environment: string;
  phaseSeconds: number;
  phase: 'quiet' | 'walk' | 'done';
  /** When the current phase ends (ms). */
  endsAt: number;
  links: Map<string, { link: SensingLinkInfo; seen: Map<number, string>; bounds: (number | null)[] }>;
  results: { link: SensingLinkInfo; result: WalkTestResult }[];
}

/**
 * The Installer page's sensing part: every link the running `sense.link` nodes sense, with its radio,
 * packet rate, empty grid slots and state now, and per capability whether the link gives what it needs
 * and why (GET /api/v1/studio/sensing-links); and a guided walk test per room.
 */
export function SensingLinksPanel() {
  const [links, setLinks] = useState<SensingLinkInfo[] | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [room, setRoom] = useState('');
  const [phaseSeconds, setPhaseSeconds] = useState(20);
  const [test, setTest] = useState<WalkTest | null>(null);
  const [now, setNow] = useState(Date.now());
  const testRef = useRef<WalkTest | null>(null);
  testRef.current = test;

  usePolling(
    listSensingLinks,
    POLL_MS,
    (r) => {
      setLinks(r.links);
      setError(null);
      // A running walk test keeps every second each of its links reports.
      const t = testRef.current;
      if (t && t.phase !== 'done') {
        for (const l of r.links) {
          const entry = t.links.get(key(l));
          if (entry) mergeRecentStates(entry.seen, l.last_second, l.recent_states);
        }
      }
    },
    (e) => setError(e instanceof ApiError && e.status === 404 ? 'This server does not list sensing links.' : e.message),
  );

  // The walk test's clock: move to the next phase, and judge each link when it ends.
  useEffect(() => {
    if (!test || test.phase === 'done') return;
    const timer = setInterval(() => {
      setNow(Date.now());
      const t = testRef.current;
      if (!t || t.phase === 'done' || Date.now() < t.endsAt) return;
      const current = new Map((links ?? []).map((l) => [key(l), l]));
      for (const [k, entry] of t.links) entry.bounds.push(current.get(k)?.last_second ?? null);
      if (t.phase === 'quiet') {
        const at = Date.now();
        setNow(at);
        setTest({ ...t, phase: 'walk', endsAt: at + t.phaseSeconds * 1000 });
        return;
      }
      const results = [...t.links.values()].map(({ link, seen, bounds }) => {
        const [start, quietEnd, walkEnd] = bounds.map((b) => b ?? -1);
        return { link, result: walkTestVerdict(tallyPhase(seen, start, quietEnd), tallyPhase(seen, quietEnd, walkEnd)) };
      });
      setTest({ ...t, phase: 'done', results });
    }, 250);
    return () => clearInterval(timer);
  }, [test, links]);

  if (error) return <p className="error">{error}</p>;
  if (!links) return null;
  const rooms = [...new Set(links.map((l) => l.environment_id))];
  const chosen = rooms.includes(room) ? room : (rooms[0] ?? '');
  const notes = links.flatMap((l) => l.notes.map((n) => ({ link: l, note: n })));

  const start = () => {
    const own = links.filter((l) => l.environment_id === chosen);
    const entries = new Map(own.map((l) => {
      const seen = new Map<number, string>();
      mergeRecentStates(seen, l.last_second, l.recent_states);
      return [key(l), { link: l, seen, bounds: [l.last_second] as (number | null)[] }];
    }));
    const at = Date.now();
    setNow(at);
    setTest({ environment: chosen, phaseSeconds, phase: 'quiet', endsAt: at + phaseSeconds * 1000, links: entries, results: [] });
  };
  const left = test && test.phase !== 'done' ? Math.max(0, Math.ceil((test.endsAt - now) / 1000)) : 0;

  return (
    <section className="wf-sensing-links" data-testid="installer-sensing">
      <h3>Sensing links: what each link gives</h3>
      <p className="muted">
        Links the running sense.link nodes receive (one ESP32, or each receiver of a room): the radio, the packet rate and the share of the sensing&apos;s 10-Hz grid left empty over the last 10 s, what the link reads now, and for each capability whether the link gives what it needs (ok, limited, no) and why. How well each does on real recordings is in the sensing documentation.
      </p>
      {links.length === 0 ? (
        <p className="muted" data-testid="installer-sensing-none">
          No running pipeline senses with sense.link. Deploy one (the example &quot;ESP32 room sensing&quot; is a room with one ESP32), then come back.
        </p>
      ) : (
        <DataTable testId="installer-sensing-links" columns={['Room', 'Link', 'Radio', 'Packets/s', 'Grid slots empty', 'Now', ...CAPABILITIES.map(([, title]) => title)]}>
          {links.map((l) => (
            <tr key={key(l)} data-link={l.link} data-environment={l.environment_id}>
              <td>{l.environment_id}</td>
              <td>{l.link}</td>
              <td>{radio(l)}</td>
              <td>{l.packets_per_second === null ? '—' : l.packets_per_second.toFixed(1)}</td>
              <td>{l.lost_fraction === null ? '—' : `${Math.round(100 * l.lost_fraction)} %`}</td>
              <td>{l.state === null ? '—' : `${l.state}, motion ${Math.round(100 * (l.motion ?? 0))} %`}</td>
              {CAPABILITIES.map(([capability]) => {
                const c = l.checks.find((x) => x.capability === capability);
                return (
                  <td key={capability} data-capability={capability} data-verdict={c?.verdict ?? 'unknown'} className={c?.verdict === 'no' ? 'error' : ''}>
                    <strong>{c?.verdict ?? 'unknown'}</strong>
                    <br />
                    <small className="muted">{c?.reason ?? ''}</small>
                  </td>
                );
              })}
            </tr>
          ))}
        </DataTable>
      )}
      {notes.map(({ link, note }) => (
        <p key={`${key(link)}/${note}`} className="wf-warning" data-testid="installer-sensing-note">
          Link <strong>{link.link}</strong> of {link.environment_id}: {note}
        </p>
      ))}
      {rooms.length ? (
        <div className="wf-walk-test" data-testid="installer-walk-test" data-phase={test?.phase ?? 'idle'}>
          <h4>Walk test</h4>
          <p className="muted">
            Checks that each link of a room reads a quiet room as quiet and sees a person walk: first everyone leaves the room (or stays still outside it), then one person walks through it, crossing between the radios. The first 3 s of each phase are not judged.
          </p>
          <label>
            Room{' '}
            <select value={chosen} onChange={(e) => setRoom(e.target.value)} data-testid="installer-walk-room" disabled={!!test && test.phase !== 'done'}>
              {rooms.map((r) => (
                <option key={r} value={r}>
                  {r}
                </option>
              ))}
            </select>
          </label>{' '}
          <label>
            Seconds per phase{' '}
            <input type="number" min={5} max={120} value={phaseSeconds} onChange={(e) => setPhaseSeconds(Math.min(120, Math.max(5, Number(e.target.value) || 20)))} style={{ width: 64 }} data-testid="installer-walk-seconds" />
          </label>{' '}
          <button onClick={start} disabled={!!test && test.phase !== 'done'} data-testid="installer-walk-start">
            Start walk test
          </button>
          {test && test.phase !== 'done' ? (
            <p className="wf-warning" data-testid="installer-walk-instruction">
              {test.phase === 'quiet' ? (
                <>
                  <strong>1 of 2: leave the room</strong> (or stand still outside it), keep doors, fans and pets still: {left} s
                </>
              ) : (
                <>
                  <strong>2 of 2: walk through the room</strong>, crossing between the radios, at a normal pace: {left} s
                </>
              )}
            </p>
          ) : null}
          {test?.phase === 'done' ? (
            <DataTable testId="installer-walk-results" columns={['Link', 'Result', 'What the link read']}>
              {test.results.map(({ link, result }) => (
                <tr key={key(link)} data-link={link.link} data-verdict={result.verdict}>
                  <td>{link.link}</td>
                  <td className={result.verdict === 'pass' ? '' : 'error'}>{result.verdict === 'pass' ? 'pass' : result.verdict === 'fail' ? 'fail' : 'not judged'}</td>
                  <td>
                    {result.lines.map((line) => (
                      <div key={line}>{line}</div>
                    ))}
                  </td>
                </tr>
              ))}
            </DataTable>
          ) : null}
        </div>
      ) : null}
    </section>
  );
}
