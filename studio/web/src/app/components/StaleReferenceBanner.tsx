import { useEffect, useState } from 'react';
import { listReferenceRooms, type ReferenceLink } from '../api/references';

/** How often every page asks whether a reference went stale. */
const POLL_MS = 15_000;

/**
 * A warning on every page while a link's empty-room reference is stale, naming the links and
 * pointing to the Installer page to re-record. Shows nothing while the references are fresh,
 * unchecked, or cannot be read (the Installer page says why).
 */
export function StaleReferenceBanner() {
  const [stale, setStale] = useState<ReferenceLink[]>([]);
  useEffect(() => {
    let stop = false;
    const load = () =>
      listReferenceRooms().then(
        (rooms) => !stop && setStale(rooms.flatMap((r) => r.links.filter((l) => l.status === 'stale'))),
        () => !stop && setStale([]),
      );
    void load();
    const timer = setInterval(load, POLL_MS);
    return () => {
      stop = true;
      clearInterval(timer);
    };
  }, []);
  if (!stale.length) return null;
  return (
    <p className="wf-warning wf-stale-banner" data-testid="stale-banner">
      Stale empty-room reference on {stale.map((l) => `${l.link} (${l.environment_id})`).join(', ')}: the room changed since it was recorded. If the room was empty, re-record it on the <a href="#/installer">Installer page</a>.
    </p>
  );
}
