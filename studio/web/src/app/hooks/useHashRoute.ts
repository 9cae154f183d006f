import { useEffect, useState } from 'react';

/** The current hash route split into parts: '#/flows/abc' → ['flows', 'abc']. */
export function useHashRoute(): string[] {
  const read = () => window.location.hash.replace(/^#\/?/, '').split('/').filter(Boolean);
  const [route, setRoute] = useState(read);
  useEffect(() => {
    const onChange = () => setRoute(read());
    window.addEventListener('hashchange', onChange);
    return () => window.removeEventListener('hashchange', onChange);
  }, []);
  return route;
}

/** Navigate to a hash route. */
export function go(path: string): void {
  window.location.hash = `#/${path}`;
}
