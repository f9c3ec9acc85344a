import i18n, { type BackendModule, type ReadCallback, type ResourceKey } from 'i18next';
import LanguageDetector from 'i18next-browser-languagedetector';
import { initReactI18next } from 'react-i18next';
import dayjs from 'dayjs';
import relativeTime from 'dayjs/plugin/relativeTime';
import localizedFormat from 'dayjs/plugin/localizedFormat';
import 'dayjs/locale/de';
import 'dayjs/locale/en-au';
import { en } from './locales/en';
import { de } from './locales/de';

/** The namespace of the texts bundled with the app's entry: the user portal's and the login pages'. */
export const BUNDLED_NAMESPACE = 'translation';

/**
 * The namespace of the admin console's texts, which the portal never needs: downloaded (one chunk per
 * language) when the console opens. It is the fallback namespace, so a key such as
 * `agentsScreen.create` is found there without naming the namespace.
 */
export const ADMIN_NAMESPACE = 'admin';

/** The languages the app ships texts for; en-AU and everything else fall back to English. */
export const resources = { en: { [BUNDLED_NAMESPACE]: en }, de: { [BUNDLED_NAMESPACE]: de } } as const;

/** The admin console's texts per language: each a dynamic import, so a chunk of its own. */
export const adminTexts: Record<'en' | 'de', () => Promise<ResourceKey>> = {
  en: () => import('./locales/en-admin').then((module) => module.enAdmin),
  de: () => import('./locales/de-admin').then((module) => module.deAdmin),
};

/**
 * Where i18next gets the texts that are not bundled: the admin namespace of English and German. Any
 * other language or namespace has no texts of its own (en-AU, de-AT: they fall back), answered at once.
 */
export const lazyTexts: BackendModule = {
  type: 'backend',
  callbackApi: true,
  init: () => undefined,
  read(language: string, namespace: string, callback: ReadCallback) {
    if (namespace !== ADMIN_NAMESPACE || (language !== 'en' && language !== 'de')) return callback(null, {});
    adminTexts[language]().then(
      (texts) => callback(null, texts),
      (error: unknown) => callback(error instanceof Error ? error : new Error(String(error)), false),
    );
  },
};

/** localStorage key remembering the chosen language. */
const LANGUAGE_STORAGE_KEY = 'postern.language';

dayjs.extend(relativeTime);
dayjs.extend(localizedFormat);

/** The dayjs locale matching an i18next language: German for de-*, Australian English otherwise. */
export function dayjsLocaleFor(language: string): 'de' | 'en-au' {
  return language.toLowerCase().startsWith('de') ? 'de' : 'en-au';
}

/**
 * The Intl locale matching an i18next language, the same choice as {@link dayjsLocaleFor}: every date
 * the app writes, through dayjs or Intl, follows the chosen language, never the browser's own locale
 * (English is the specification's en-AU: day first).
 */
export function intlLocaleFor(language: string | undefined): 'de' | 'en-AU' {
  return (language ?? '').toLowerCase().startsWith('de') ? 'de' : 'en-AU';
}

// Registered before init so the first language choice also sets dayjs and <html lang>.
i18n.on('languageChanged', (language) => {
  dayjs.locale(dayjsLocaleFor(language));
  document.documentElement.lang = language;
});

void i18n
  .use(LanguageDetector)
  .use(lazyTexts)
  .use(initReactI18next)
  .init({
    resources,
    // Bundled texts for the portal; the backend (lazyTexts) for the admin namespace, on demand.
    partialBundledLanguages: true,
    ns: [BUNDLED_NAMESPACE],
    defaultNS: BUNDLED_NAMESPACE,
    fallbackNS: ADMIN_NAMESPACE,
    // The spec's default locale is en-AU; it has no texts of its own, so it resolves to en.
    fallbackLng: ['en-AU', 'en'],
    supportedLngs: ['en', 'en-AU', 'de'],
    nonExplicitSupportedLngs: true,
    detection: {
      order: ['querystring', 'localStorage', 'navigator'],
      lookupQuerystring: 'lng',
      lookupLocalStorage: LANGUAGE_STORAGE_KEY,
      caches: ['localStorage'],
    },
    // React escapes text itself; escaping here would show &amp; and friends.
    interpolation: { escapeValue: false },
    // The portal's resources are bundled, so the first render can already use them.
    initAsync: false,
  });

/**
 * Downloads the admin console's texts for the current language (and English, its fallback). Once
 * loaded, the namespace stays loaded: a later language change downloads the new language's admin
 * texts before it takes effect, so the console never shows raw keys. Rejects when a download fails.
 */
export function loadAdminTexts(): Promise<void> {
  return new Promise((resolve, reject) => {
    void i18n.loadNamespaces(ADMIN_NAMESPACE, (error) => {
      if (error) reject(new Error(`The admin console's texts could not be loaded: ${String(error)}`));
      else resolve();
    });
  });
}

export default i18n;
