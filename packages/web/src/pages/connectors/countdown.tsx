import { useEffect, useState } from 'preact/hooks';

const clock = (seconds: number) => `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;

/** The time left until `until` (ms since the epoch), every second; a screen reader reads it when asked. */
export function Countdown({ until, what }: { until: number; what: string }) {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), 1000);
    return () => clearInterval(timer);
  }, []);
  const left = Math.max(0, Math.ceil((until - now) / 1000));
  return (
    <p class="countdown">
      <span role="timer" aria-label={`${what}: ${clock(left)} left`}>
        {clock(left)}
      </span>{' '}
      left {what}
    </p>
  );
}
