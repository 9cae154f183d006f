import { useEffect, useRef } from 'react';

/**
 * Ask `load` now and every `intervalMs` while the component is mounted, handing each answer to `onValue` and
 * each failure to `onError`; answers that arrive after unmounting are dropped. The latest callbacks are used,
 * so they need not be stable.
 */
export function usePolling<T>(load: () => Promise<T>, intervalMs: number, onValue: (value: T) => void, onError: (error: Error) => void): void {
  const latest = useRef({ load, onValue, onError });
  latest.current = { load, onValue, onError };
  useEffect(() => {
    let stop = false;
    const ask = () =>
      latest.current.load().then(
        (value) => !stop && latest.current.onValue(value),
        (error: Error) => !stop && latest.current.onError(error),
      );
    void ask();
    const timer = setInterval(ask, intervalMs);
    return () => {
      stop = true;
      clearInterval(timer);
    };
  }, [intervalMs]);
}
