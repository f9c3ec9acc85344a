// Runs before the app's bundle so the first paint already has the right colour scheme and tab icon
// (no flash of a light page in the dark admin console). It must stay a plain external file: the
// Content-Security-Policy allows no inline scripts. Keep the keys and defaults in step with
// src/theme/color-scheme.ts and src/app/area.ts.
(function () {
  var path = window.location.pathname;
  var admin = path === '/admin' || path.indexOf('/admin/') === 0;
  var scheme = admin ? 'dark' : 'auto';
  try {
    var stored = window.localStorage.getItem(admin ? 'postern.colorScheme.admin' : 'postern.colorScheme.user');
    if (stored === 'light' || stored === 'dark' || stored === 'auto') scheme = stored;
  } catch {
    // Storage can be blocked; the default is fine.
  }
  if (scheme === 'auto') {
    scheme = window.matchMedia && window.matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light';
  }
  document.documentElement.setAttribute('data-mantine-color-scheme', scheme);
  if (admin) {
    var icon = document.querySelector('link[rel="icon"]');
    if (icon) icon.setAttribute('href', '/favicon-admin.svg');
  }
})();
