import dayjs from 'dayjs';

/**
 * A moment as people say it ("3 minutes ago", "vor 3 Minuten", in dayjs's current locale), with
 * the full local date and time as its tooltip and the exact instant for machines.
 */
export function RelativeTime({ date }: { date: string }) {
  const moment = dayjs(date);
  return (
    <time dateTime={date} title={moment.format('LLL')}>
      {moment.fromNow()}
    </time>
  );
}
