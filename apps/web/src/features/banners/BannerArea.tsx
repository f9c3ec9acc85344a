/**
 * The one banner slot at the top of every admin page. A later issue fills it with the spec's banners
 * in priority order (unlicensed, agent incompatible, user limit exceeded, server update), showing at
 * most one, each dismissible for the session. Until then there is nothing to announce.
 */
export function BannerArea() {
  return null;
}
