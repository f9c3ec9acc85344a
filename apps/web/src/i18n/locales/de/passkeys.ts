import type { MirroredResource } from '../../resource-types';
import type { passkeys as english } from '../en/passkeys';

/** German: Passkeys (WebAuthn): Anmeldung, zweiter Faktor und die Verwaltung der eigenen. */
export const passkeys: MirroredResource<typeof english> = {
  passkey: {
    signIn: 'Mit einem Passkey anmelden',
    useForSecondFactor: 'Passkey verwenden',
    or: 'oder',
    cancelled: 'Es wurde kein Passkey verwendet. Sie können es erneut versuchen oder einen anderen Weg wählen.',
    failed: 'Ihr Browser konnte hier keinen Passkey verwenden.',
    alreadyRegistered: 'Dieses Gerät hat bereits einen Passkey für Ihr Konto.',
    choice: {
      heading: 'Wie möchten Sie Ihre Anmeldungen bestätigen?',
      passkey: 'Passkey einrichten',
      passkeyHint:
        'Ihr Gerät, Sicherheitsschlüssel oder Passwortmanager bestätigt, dass Sie es sind: keine Codes zum Abtippen.',
      app: 'Authenticator-App verwenden',
      appHint: 'Eine App auf Ihrem Telefon zeigt einen 6-stelligen Code zum Eingeben.',
      back: 'Anderen Weg wählen',
    },
    name: {
      label: 'Name des Passkeys',
      description: 'Damit Sie Ihre Passkeys unterscheiden können, z. B. „Arbeitslaptop“.',
      required: 'Sie müssen dem Passkey einen Namen geben',
      tooLong: 'Der Name darf höchstens 64 Zeichen haben',
      controlCharacters: 'Der Name darf keine Steuerzeichen enthalten',
      suggestion: 'Mein Passkey',
    },
    create: 'Passkey erstellen',
    enrolled: 'Ihr Passkey ist eingerichtet.',
    manage: {
      open: 'Passkeys',
      title: 'Ihre Passkeys',
      intro: 'Mit Passkeys melden Sie sich mit Ihrem Gerät, Sicherheitsschlüssel oder Passwortmanager an.',
      empty: 'Sie haben noch keine Passkeys.',
      listLabel: 'Ihre Passkeys',
      created: 'Hinzugefügt',
      lastUsed: 'Zuletzt verwendet',
      neverUsed: 'Noch nie verwendet',
      synced: 'Synchronisiert',
      syncedHint: 'Wird von Ihrem Passwortmanager oder Ihrer Plattform über Ihre Geräte hinweg synchronisiert.',
      add: 'Passkey hinzufügen',
      added: 'Passkey hinzugefügt.',
      rename: 'Umbenennen',
      renameLabel: '{{name}} umbenennen',
      renameTitle: 'Passkey umbenennen',
      renamed: 'Passkey umbenannt.',
      remove: 'Entfernen',
      removeLabel: '{{name}} entfernen',
      removeTitle: 'Passkey entfernen',
      removeMessage: 'Den Passkey „{{name}}“ entfernen? Er kann dann nicht mehr zur Anmeldung verwendet werden.',
      removed: 'Passkey entfernt.',
      recentSignIn:
        'Zu Ihrer Sicherheit lassen sich Passkeys nur innerhalb von {{minutes}} Minuten nach der Anmeldung ändern. Melden Sie sich erneut an, um Ihre Passkeys zu ändern.',
      limit: 'Sie haben {{max}} Passkeys, die höchstzulässige Zahl für ein Konto.',
    },
  },
};
