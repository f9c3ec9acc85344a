import { useRef } from 'react';
import { useQuery, useQueryClient } from '@tanstack/react-query';
import type { Area } from '../../lib/area';
import { completeSignIn, usePendingSignInStep } from '../two-factor/use-second-factor';
import { passkeysSupported, runAuthentication } from './ceremony';
import { authenticationOptions, authenticationVerify, passkeyKeys } from './webauthn-api';

/** What the second-factor screen needs from the passkey way. */
export interface PasskeySecondFactor {
  /** The account has passkeys and this browser can use them. */
  offered: boolean;
  start: () => void;
  pending: boolean;
  /** The last failure (a cancelled prompt included), or null. */
  error: unknown;
}

/**
 * The second factor by passkey. The options are asked for when the screen opens: an account
 * without passkeys answers 409 err.noPasskeys and the screen asks for a code only (as it does on
 * any other refusal there: the code remains, and says what is wrong when it is tried). Each challenge
 * answers once, so a second try (after a cancel) asks for fresh options. Success lands where a
 * code would; a pending sign-in that expired goes back to the login.
 */
export function usePasskeySecondFactor(realm: Area): PasskeySecondFactor {
  const queryClient = useQueryClient();
  const supported = passkeysSupported();
  const optionsUsed = useRef(false);
  const options = useQuery({
    queryKey: [...passkeyKeys.all, 'second-factor', realm],
    queryFn: ({ signal }) => authenticationOptions(realm, signal),
    enabled: supported,
    retry: false,
    staleTime: Infinity,
    gcTime: 0,
    refetchOnWindowFocus: false,
    refetchOnReconnect: false,
  });
  const step = usePendingSignInStep(realm, async (_: undefined) => {
    const fresh = optionsUsed.current || options.data === undefined;
    optionsUsed.current = true;
    const ceremony = fresh ? await authenticationOptions(realm) : options.data;
    await authenticationVerify(realm, await runAuthentication(ceremony));
    return completeSignIn(realm, queryClient);
  });

  return {
    offered: supported && options.isSuccess,
    start: () => step.run(undefined),
    pending: step.pending,
    error: step.error,
  };
}
