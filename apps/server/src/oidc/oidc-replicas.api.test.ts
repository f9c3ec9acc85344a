import { beforeEach, describe, expect, it } from 'vitest';
import { ErrorCodes } from '@postern/protocol';
import { createTestReplica, type TestApp } from '../test-support/test-app.js';
import { useTestApp } from '../test-support/use-test-app.js';
import { bothStores } from '../test-support/store-kinds.js';
import { cookieFrom } from '../test-support/http.js';
import {
  configureOidc,
  finishSignIn,
  refusedWith,
  signInThrough,
  startSignIn,
  useTestOidcProvider,
} from '../test-support/oidc-sign-in.js';

/**
 * Two replicas on one store: an OpenID Connect sign-in started on one may come back to the other (the
 * load balancer decides), so its state, nonce and browser binding live in the store, and a callback is
 * spent once whichever replica sees it first.
 */

const provider = useTestOidcProvider();
/** A replica loads its own copy of the server's modules; on a busy machine that takes a while. */
const REPLICA_TEST_MS = 60_000;

describe.each(bothStores())('OpenID Connect sign-in across replicas (%s)', { timeout: REPLICA_TEST_MS }, (kind) => {
  const a = useTestApp(kind);
  let b: TestApp;
  beforeEach(async () => {
    provider().editIdToken = null;
    provider().signingKey = 'provider';
    await configureOidc(a, provider().issuer);
    b = await createTestReplica(a);
  }, REPLICA_TEST_MS);

  it('finishes on one replica a sign-in started on the other, and the session holds on both', async () => {
    const answer = await signInThrough(a.app, provider(), 'user', 'sub-alice', { finishOn: b.app });

    expect(answer.headers.location).toBe('/home/new');
    const cookie = cookieFrom(answer, 'postern_session') ?? '';
    for (const replica of [a, b]) {
      const status = await replica.app.inject({ method: 'GET', url: '/api/status', headers: { cookie } });
      expect(status.statusCode).toBe(200);
    }
  });

  it('refuses on one replica a callback the other has spent', async () => {
    const started = await startSignIn(a.app, 'user');
    const callback = await provider().signIn(started.location, 'sub-alice');
    expect((await finishSignIn(b.app, callback, started.flowCookie)).headers.location).toBe('/home/new');

    expect(refusedWith(await finishSignIn(a.app, callback, started.flowCookie), 'user')).toBe(
      ErrorCodes.authenticationFailed,
    );
  });

  it('lets exactly one of two replicas finish the same callback at once', async () => {
    const started = await startSignIn(b.app, 'user');
    const callback = await provider().signIn(started.location, 'sub-bob');

    const answers = await Promise.all([a, b].map((replica) => finishSignIn(replica.app, callback, started.flowCookie)));

    const outcomes = answers.map((answer) => refusedWith(answer, 'user') ?? String(answer.headers.location)).sort();
    expect(outcomes).toEqual(['/home/new', ErrorCodes.authenticationFailed].sort());
    const users = await a.ctx.db.selectFrom('users').select('userName').execute();
    expect(users).toEqual([{ userName: 'bob' }]);
  });
});
