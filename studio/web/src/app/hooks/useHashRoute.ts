import { useEffect, useState } from 'react';

/** The current hash route split into parts: '#/flows/abc' → ['flows', 'abc']; a query ('#/live?environment=home') is not part of it. */
export function useHashRoute(): string[] {
  const read = () => window.location.hash.replace(/^#\/?/, '').split('?')[0].split('/').filter(Boolean);
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

/** The query of the hash route: '#/live?environment=home' → environment=home. */
export function hashQuery(): URLSearchParams {
  const hash = window.location.hash;
  const at = hash.indexOf('?');
  return new URLSearchParams(at < 0 ? '' : hash.slice(at + 1));
}

/** Replace the hash route's query without a new history entry (and without a hashchange). */
export function replaceHashQuery(query: URLSearchParams): void {
  const base = window.location.hash.split('?')[0] || '#/';
  const text = query.toString();
  window.history.replaceState(window.history.state, '', `${window.location.pathname}${window.location.search}${base}${text ? `?${text}` : ''}`);
}
