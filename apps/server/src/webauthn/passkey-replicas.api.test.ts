import { beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { createTestReplica, type TestApp } from '../test-support/test-app.js';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { givenUser } from '../test-support/factories.js';
import { givenUserSession } from '../test-support/sessions.js';
import { PasskeyClient } from '../test-support/passkeys.js';

/**
 * Two replicas on one store: a ceremony's options come from one, and the load balancer may send
 * the browser's answer to the other. The challenge lives in the store, so either finishes it, and
 * once answered it is spent on both.
 */

/** A replica loads its own copy of the server's modules; on a busy machine that takes a while. */
const REPLICA_TEST_MS = 60_000;

describe.each(bothStores())('passkeys across replicas (%s)', { timeout: REPLICA_TEST_MS }, (kind) => {
  const a = useTestApp(kind);
  let b: TestApp;
  beforeEach(async () => {
    b = await createTestReplica(a);
  }, REPLICA_TEST_MS);

  it('registers with the options of one replica and the verify on the other', async () => {
    const cookie = await givenUserSession(a, await givenUser(a.ctx));
    const onA = new PasskeyClient(a, 'user');
    const onB = new PasskeyClient(b, 'user', onA.authenticator);

    const created = onA.authenticator.register(await onA.options('/registration/options', cookie));
    const verified = await onB.verifyRegistration(cookie, created, 'Laptop');
    expect(verified.statusCode, verified.body).toBe(200);
    const listed = (await onA.call('GET', '/credentials', cookie)).json<{ data: { Name: string }[] }>().data;
    expect(listed.map((passkey) => passkey.Name)).toEqual(['Laptop']);
  });

  it('signs in with a passkey alone across replicas, and the answer is spent on both', async () => {
    const onA = new PasskeyClient(a, 'user');
    const onB = new PasskeyClient(b, 'user', onA.authenticator);
    await onA.givenPasskey(await givenUserSession(a, await givenUser(a.ctx)));

    const { CeremonyID, Options } = (await onA.passwordlessOptions()).json<{
      data: { CeremonyID: string; Options: Record<string, unknown> };
    }>().data;
    const answer = { CeremonyID, Response: onA.authenticator.assert(Options) };
    const signedIn = await onB.call('POST', '/passwordless/verify', undefined, answer);
    expect(signedIn.statusCode, signedIn.body).toBe(200);
    const cookie = onB.cookieOf(signedIn) ?? '';
    expect((await a.app.inject({ url: '/api/status', headers: { cookie } })).statusCode).toBe(200);

    const replayed = await onA.call('POST', '/passwordless/verify', undefined, answer);
    expect(replayed.statusCode).toBe(400);
    expect(replayed.json()).toEqual({ Err: ErrorCodes.ceremonyExpired });
  });
});
