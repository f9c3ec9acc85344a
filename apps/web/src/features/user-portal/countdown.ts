/** Whole seconds from `now` until `ends` (ISO 8601), never below zero. */
export function secondsUntil(ends: string, now: number): number {
  const at = Date.parse(ends);
  if (Number.isNaN(at)) return 0;
  return Math.max(0, Math.floor((at - now) / 1000));
}

/** A duration as HH:MM:SS (spec §9); hours keep growing past 99 rather than wrapping. */
export function formatCountdown(totalSeconds: number): string {
  const seconds = Math.max(0, Math.floor(totalSeconds));
  const pad = (value: number) => String(value).padStart(2, '0');
  return `${pad(Math.floor(seconds / 3600))}:${pad(Math.floor((seconds % 3600) / 60))}:${pad(seconds % 60)}`;
}

/** Whole days from `now` until `until` (ISO 8601), rounded down and never below zero. */
export function daysUntil(until: string, now: number): number {
  const at = Date.parse(until);
  if (Number.isNaN(at)) return 0;
  return Math.max(0, Math.floor((at - now) / 86_400_000));
}
