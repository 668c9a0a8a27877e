// Every auth lifetime in one place (docs/auth.md explains the choices).
const MINUTE_S = 60;
export const HOUR_S = 3600;
export const DAY_S = 86_400;

/** How long a registration can be claimed (after this: HTTP 410 claim_expired). */
export const CLAIM_TTL_S = DAY_S;
/**
 * After a claim's tokens are first delivered, a repeated poll delivers them again (a new identity
 * assertion) for this long, up to CLAIM_MAX_DELIVERIES in all: an answer lost in flight does not
 * strand a service_auth agent, which has no other assertion.
 */
export const CLAIM_REDELIVERY_S = 10 * 60;
export const CLAIM_MAX_DELIVERIES = 3;
/** How long one claim ceremony (one user code) lasts (after this: expired_token). */
export const CEREMONY_TTL_S = 15 * MINUTE_S;
/** Wrong codes a ceremony tolerates before it locks (the agent restarts it at the claim endpoint). */
export const MAX_WRONG_CODES = 5;
/** Claim notices mailed to one address per hour (the ceremony works without them). */
export const MAILS_PER_ADDRESS_PER_HOUR = 5;
/** Polling interval handed to agents; slow_down adds SLOW_DOWN_STEP_S. */
export const CLAIM_POLL_INTERVAL_S = 5;
export const SLOW_DOWN_STEP_S = 5;
/** Identity assertion of an unclaimed anonymous registration. */
export const ANONYMOUS_ASSERTION_TTL_S = 30 * DAY_S;
/** Identity assertion issued when a claim completes. */
export const CLAIMED_ASSERTION_TTL_S = 90 * DAY_S;
/** Opaque pre-claim access token (mcp.public). */
export const PRE_CLAIM_TOKEN_TTL_S = HOUR_S;
/** Web session cookie. */
export const WEB_SESSION_TTL_S = 7 * DAY_S;
/** Failed sign-ins: at most this many per e-mail (and IP_MAX per address) inside the window. */
export const SIGN_IN_WINDOW_S = 15 * MINUTE_S;
/** Failures for one e-mail from one client address: guessing from one place stops here. */
export const SIGN_IN_MAX_FAILURES_PER_EMAIL_AND_IP = 5;
/** Failures from one client address over any e-mails (password spraying). */
export const SIGN_IN_MAX_FAILURES_PER_IP = 20;
/**
 * Failures for one e-mail from all addresses together: slows guessing spread over many addresses.
 * High enough that one address (capped at 20) cannot lock the owner out.
 */
export const SIGN_IN_MAX_FAILURES_PER_EMAIL = 100;
/** Browser OAuth (oidc-provider): authorization code, refresh token, access token. */
export const OAUTH_CODE_TTL_S = 60;
export const OAUTH_REFRESH_TTL_S = 30 * DAY_S;
export const OAUTH_ACCESS_TTL_S = HOUR_S;
/** An e-mail verification link (signed, single use). */
export const EMAIL_VERIFY_LINK_TTL_S = DAY_S;
/** Verification mails per account: one per minute at most, five per hour. */
export const EMAIL_VERIFY_RESEND_GAP_S = MINUTE_S;
export const EMAIL_VERIFY_MAILS_PER_HOUR = 5;
/** A password reset link: single use, stored hashed. */
export const PASSWORD_RESET_TTL_S = HOUR_S;
/** Reset requests per address and per client address, per hour (the answer is the same either way). */
export const PASSWORD_RESETS_PER_EMAIL_HOURLY = 3;
export const PASSWORD_RESETS_PER_CLIENT_HOURLY = 20;
/** A link confirming a new e-mail address: single use, stored hashed. */
export const EMAIL_CHANGE_TTL_S = DAY_S;
/** After an address change, the old address's link that moves the account back (and ends everything signed in). */
export const EMAIL_CHANGE_UNDO_TTL_S = 7 * DAY_S;
/** E-mail change requests per account per hour (each mails two addresses). */
export const EMAIL_CHANGES_PER_ACCOUNT_HOURLY = 5;
