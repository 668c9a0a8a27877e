// The exit codes every `siteline` command uses, documented in `siteline --help`, README and docs/cli.md.
export const EXIT = {
  /** Done; for `check`: the address is answered. */
  ok: 0,
  /** Something failed that is not one of the cases below (the message on stderr says what). */
  failure: 1,
  /** Usage error or bad input: unknown command or flag, missing argument, an address that cannot be read. */
  usage: 2,
  /** `check`: the address is outside coverage (the answer has answered: false and says why). */
  notCovered: 3,
  /** Not logged in, or the stored login was revoked or expired: run `siteline login`. */
  authNeeded: 4,
  /** The siteline service could not be reached at the URL in use. */
  unreachable: 5,
  /** `check`: answered, but the match is not sure (confidence below 0.8): the lot may not be the one meant. */
  uncertain: 6,
} as const;

export const EXIT_CODES_HELP = `Exit codes:
  0  ok (check: answered)
  1  failure
  2  usage error or bad input
  3  check: not covered (answered: false)
  4  login needed: run \`siteline login\`
  5  the siteline service cannot be reached (start it with \`npm start\`, or use --url / --local)
  6  check: answered, but not sure it is the lot meant (match confidence below 0.8; the reason on stderr)
`;
