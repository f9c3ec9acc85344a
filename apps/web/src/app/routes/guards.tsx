import { useState, type ReactNode } from 'react';
import { Navigate } from 'react-router';
import { FullPageLoader } from '../../components/FullPageLoader';
import { ADMIN_HOME_PATH, userHomePath } from '../../features/auth/landing';
import { useAdminSecondFactorStep, useAdminSession, useUserSession } from '../../lib/session/session-store';
import { LOGIN_PATH, type Area } from '../../lib/area';
import { useSessionProbe, type ProbeResult } from './use-session-probe';

interface GuardProps {
  children: ReactNode;
}

/** The login page of `area`, carrying the probe's error code (if any) for the page to show. */
function loginTarget(area: Area, probe: ProbeResult): string {
  if (probe.state !== 'denied' || probe.errorCode === null) return LOGIN_PATH[area];
  return `${LOGIN_PATH[area]}?${new URLSearchParams({ error: probe.errorCode }).toString()}`;
}

/**
 * Whether the guard must ask the server: only when the session was missing as the guard arrived.
 * A session that disappears later was ended by code (logout, an invalid-session answer) that also
 * navigates to the right login; a redirect of the guard's own would race with it.
 */
function useProbeOnArrival(missing: boolean): boolean {
  const [missingOnArrival] = useState(missing);
  return missingOnArrival;
}

/** User routes: without a user session, the login (/). */
export function RequireUserSession({ children }: GuardProps) {
  const session = useUserSession();
  const probing = useProbeOnArrival(session === null);
  const probe = useSessionProbe('user', probing);
  if (session !== null) return children;
  if (probing && probe.state === 'denied') return <Navigate to={loginTarget('user', probe)} replace />;
  return <FullPageLoader />;
}

/**
 * Admin routes: without an admin session, the admin login (/admin); with one that still owes its
 * second factor, that step.
 */
export function RequireAdminSession({ children }: GuardProps) {
  const session = useAdminSession();
  const pendingStep = useAdminSecondFactorStep();
  const probing = useProbeOnArrival(session === null);
  const probe = useSessionProbe('admin', probing);
  if (session !== null) return pendingStep === null ? children : <Navigate to={pendingStep} replace />;
  if (probing && probe.state === 'denied') return <Navigate to={loginTarget('admin', probe)} replace />;
  return <FullPageLoader />;
}

/** The user login: a signed-in user goes on to the dashboard or home, by their preference. */
export function UserLoginGate({ children }: GuardProps) {
  const session = useUserSession();
  return session === null ? children : <Navigate to={userHomePath(session)} replace />;
}

/**
 * The admin login screens: an admin whose session is complete goes on to the admin home. A session
 * that still owes its second factor stays, so the two-factor screens can finish it.
 */
export function AdminLoginGate({ children }: GuardProps) {
  const session = useAdminSession();
  const pendingStep = useAdminSecondFactorStep();
  if (session === null || pendingStep !== null) return children;
  return <Navigate to={ADMIN_HOME_PATH} replace />;
}
