/**
 * Good news a login page shows on arrival, handed over in the router's location state (never in
 * ?error=, which is for failures). Only known notices are shown, so the state cannot inject text.
 */
export type SignInNotice = 'twoFactorEnrolled';

const NOTICE_KEY: Record<SignInNotice, string> = {
  twoFactorEnrolled: 'login.twoFactorEnrolled',
};

/** The location state that carries `notice` to a login page. */
export function signInNoticeState(notice: SignInNotice): { signInNotice: SignInNotice } {
  return { signInNotice: notice };
}

/** The translation key of the notice in a location state, or null when it carries none. */
export function signInNoticeKey(state: unknown): string | null {
  if (typeof state !== 'object' || state === null) return null;
  const notice = (state as { signInNotice?: unknown }).signInNotice;
  return typeof notice === 'string' && notice in NOTICE_KEY ? NOTICE_KEY[notice as SignInNotice] : null;
}
