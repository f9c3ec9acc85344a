import { render, screen } from '@testing-library/react';
import dayjs from 'dayjs';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import i18n from '@/i18n/i18n';
import { RelativeTime } from './RelativeTime';

const NOW = new Date('2026-03-01T12:00:00Z');
const THREE_MINUTES_AGO = '2026-03-01T11:57:00Z';

describe('RelativeTime', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(NOW);
  });
  afterEach(() => vi.useRealTimers());

  it('says how long ago, with the exact instant and the full date as its title', () => {
    render(<RelativeTime date={THREE_MINUTES_AGO} />);
    const time = screen.getByText('3 minutes ago');
    expect(time.tagName).toBe('TIME');
    expect(time).toHaveAttribute('dateTime', THREE_MINUTES_AGO);
    expect(time).toHaveAttribute('title', dayjs(THREE_MINUTES_AGO).format('LLL'));
  });

  it('speaks German when the app does', async () => {
    await i18n.changeLanguage('de');
    render(<RelativeTime date={THREE_MINUTES_AGO} />);
    expect(screen.getByText('vor 3 Minuten')).toBeInTheDocument();
  });
});
