/**
 * Full-page navigations that leave the single-page app (the SSO redirect). They go through this
 * object so that tests can spy on them: jsdom cannot follow a real navigation.
 */
export const browserLocation = {
  /** Loads `url` in this tab, as a link would. */
  assign(url: string): void {
    window.location.assign(url);
  },
};
