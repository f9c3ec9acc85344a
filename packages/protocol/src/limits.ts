/**
 * Limits and constants from the specification, shared by the server (validation), the web app
 * (forms, polling) and the tests. Change a limit here and every side follows.
 */

/** Local password length, inclusive (spec: "Password length 8 to 64"). */
export const PASSWORD_MIN_LENGTH = 8;
export const PASSWORD_MAX_LENGTH = 64;

/** Kiosk ("This is a public computer") session length in minutes, inclusive. */
export const KIOSK_SESSION_MINUTES_MIN = 5;
export const KIOSK_SESSION_MINUTES_MAX = 120;
/** Kiosk session length used until an administrator sets one: short, because the computer is shared. */
export const KIOSK_SESSION_MINUTES_DEFAULT = 15;

/** A user's session length in minutes (User.Duration). */
export const USER_SESSION_MINUTES_DEFAULT = 480;
export const USER_SESSION_MINUTES_MIN = 1;
/**
 * One year. Session ends, cookie expiries and the ISO dates the API shows stay in range, and no
 * firewall entry is opened for longer than anyone could mean.
 */
export const USER_SESSION_MINUTES_MAX = 525_600;

/**
 * The longest time-to-live the server sends an agent for an entry: the longest session. A grant
 * cannot outlive its session, so only a row from before that bound was enforced could ask for more.
 */
export const AGENT_ENTRY_TTL_MAX_SECONDS = USER_SESSION_MINUTES_MAX * 60;

/** Admin console sessions end after this many minutes; admins sign in again. */
export const ADMIN_SESSION_MINUTES = 480;

/** Knoc MaximumGrantDuration, entered in minutes, stored and sent in seconds. */
export const MAX_GRANT_MINUTES_MIN = 5;
export const MAX_GRANT_MINUTES_MAX = 40320;

/** Ports the browser probes on the IP discovery host to find every address the user has. */
export const IP_DISCOVERY_PORTS = [443, 222, 3389, 8000] as const;

/** Dashboard layout thresholds. */
export const SEARCH_MIN_ACLS_EXCLUSIVE = 10;
export const TOP_SECTION_MIN_ACLS_EXCLUSIVE = 20;
export const TOP_SECTION_MAX_ENTRIES = 5;

/** Below this many seconds of access left, a badge turns orange. */
export const COUNTDOWN_WARNING_SECONDS = 900;

/** Polling and cache intervals, in milliseconds. */
export const IP_REVALIDATION_INTERVAL_MS = 30_000;
export const DASHBOARD_FAST_POLL_MS = 1_000;
export const DASHBOARD_FAST_POLL_TRIES = 30;
export const DASHBOARD_SLOW_POLL_MS = 30_000;
export const STATUS_CACHE_MS = 180_000;
export const THEME_CACHE_MS = 600_000;
export const ADMIN_LIST_CACHE_MS = 180_000;
export const ADMIN_HOME_STATUS_REFRESH_MS = 30_000;
/** The agents page asks for the list again this often (spec: every 5 seconds on the agents page). */
export const AGENTS_PAGE_REFRESH_MS = 5_000;
/** The admin users list refreshes this often (spec §9: every 30 seconds). */
export const USERS_LIST_REFRESH_MS = 30_000;

/** Rows per page of an admin table (spec: the pager shows 25 rows a page). */
export const ADMIN_TABLE_PAGE_SIZE = 25;

/** UI timings. */
export const COPY_CONFIRMATION_MS = 750;
export const TOOLTIP_DELAY_MS = 200;

/** Licence expiry warning window, in days (not shown for cloud installations). */
export const LICENCE_EXPIRY_WARNING_DAYS = 60;

/** The category an ACL gets when none is set; the dashboard labels it "Other". */
export const DEFAULT_ACL_CATEGORY = 'Default';

/** Accent colours an administrator can choose; grape is the default. */
export const ACCENTS = ['teal', 'grape', 'iceberg', 'rose', 'offsite'] as const;
export type Accent = (typeof ACCENTS)[number];
export const DEFAULT_ACCENT: Accent = 'grape';

/** Colour modes a person can choose. */
export const COLOR_SCHEMES = ['light', 'dark', 'auto'] as const;
export type ColorSchemePreference = (typeof COLOR_SCHEMES)[number];

/** The administrator account created on an empty store. */
export const BOOTSTRAP_ADMIN_USERNAME = 'postern-admin';
