import { act, renderHook, waitFor } from '@testing-library/react';
import type { ReactNode } from 'react';
import { MemoryRouter, useNavigate } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { installFakeApi, type FakeHandler } from '../test-support/fake-api';
import { useBundleHashReload } from './use-bundle-hash-reload';

function wrapper({ children }: { children: ReactNode }) {
  return <MemoryRouter initialEntries={['/']}>{children}</MemoryRouter>;
}

/** Serves these answers to GET /api/system_status, one per call (the last one repeats). */
function systemStatusAnswers(...answers: Array<string | Error>): FakeHandler {
  let call = 0;
  return () => {
    const answer = answers[Math.min(call, answers.length - 1)];
    call += 1;
    if (answer instanceof Error || answer === undefined) return answer ?? new Error('no answer');
    return {
      body: { data: { IPApi: '', JsBundleHash: answer, UserSAMLConfigured: false, AdminSAMLConfigured: false } },
    };
  };
}

/** Mounts the hook with a navigate function to drive it; returns both. */
function mount(reload: () => void) {
  const { result } = renderHook(
    () => {
      useBundleHashReload(reload);
      return useNavigate();
    },
    { wrapper },
  );
  return { navigate: (path: string) => act(() => result.current(path)) };
}

describe('useBundleHashReload', () => {
  it('reloads when a navigation finds a different bundle hash', async () => {
    const fake = installFakeApi({ 'GET /api/system_status': systemStatusAnswers('build-1', 'build-2') });
    const reload = vi.fn();
    const { navigate } = mount(reload);
    await waitFor(() => expect(fake.calls('GET /api/system_status')).toHaveLength(1));
    await navigate('/home');
    await waitFor(() => expect(reload).toHaveBeenCalledTimes(1));
  });

  it('does not reload while the hash stays the same', async () => {
    const fake = installFakeApi({ 'GET /api/system_status': systemStatusAnswers('build-1') });
    const reload = vi.fn();
    const { navigate } = mount(reload);
    await waitFor(() => expect(fake.calls('GET /api/system_status')).toHaveLength(1));
    await navigate('/home');
    await navigate('/home/new');
    await waitFor(() => expect(fake.calls('GET /api/system_status')).toHaveLength(3));
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(reload).not.toHaveBeenCalled();
  });

  it('ignores failed checks, and compares with the first hash it did see', async () => {
    const fake = installFakeApi({
      'GET /api/system_status': systemStatusAnswers(new TypeError('Failed to fetch'), 'build-1', 'build-1', 'build-9'),
    });
    const reload = vi.fn();
    const { navigate } = mount(reload);
    await waitFor(() => expect(fake.calls('GET /api/system_status')).toHaveLength(1));
    await navigate('/a');
    await waitFor(() => expect(fake.calls('GET /api/system_status')).toHaveLength(2));
    await navigate('/b');
    await waitFor(() => expect(fake.calls('GET /api/system_status')).toHaveLength(3));
    expect(reload).not.toHaveBeenCalled();
    await navigate('/c');
    await waitFor(() => expect(reload).toHaveBeenCalledTimes(1));
  });

  it('ignores a server error answer', async () => {
    installFakeApi({ 'GET /api/system_status': { status: 503, body: { Err: 'err.storeUnavailable' } } });
    const reload = vi.fn();
    const { navigate } = mount(reload);
    await navigate('/next');
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(reload).not.toHaveBeenCalled();
  });
});
