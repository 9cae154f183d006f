// Pilot helper (not shipped; branch fallwidth, pilot/fallwidth-protocol.md): the variant "a fall that starts from
// standing still": a `stand` of `seconds` inserted right after the walk of every fall and fall-like session (before
// the slump's sit, the fall or the fall-like movement). Other sessions are returned as they are.
import { validateScenario } from '@wiflow/plugin-sim';

/** The session with the pause inserted after its first walk (fall and fall-like sessions only; `seconds` 0 = unchanged). */
export function withPauseBeforeFall(session, seconds) {
  if (!seconds || (session.kind !== 'fall' && session.kind !== 'fall-like')) return session;
  const people = session.scenario.people.map((p, i) => {
    if (i > 0) return p;
    const at = p.script.findIndex((s) => s.action === 'walk');
    if (at < 0) throw new Error(`${session.scenario.name}: no walk to pause after`);
    return { ...p, script: [...p.script.slice(0, at + 1), { action: 'stand', duration: seconds }, ...p.script.slice(at + 1)] };
  });
  return { ...session, scenario: validateScenario({ ...session.scenario, people }, session.scenario.name) };
}
