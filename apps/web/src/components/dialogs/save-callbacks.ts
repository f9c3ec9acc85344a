import { notifications } from '@mantine/notifications';

/**
 * The mutate callbacks of a form dialog's save: on success a green notification with `message` and
 * the dialog closes; a refusal goes to the form (`form.refuse`: on its field, else above the form).
 */
export function saveCallbacks(message: string, onClose: () => void, refuse: (error: unknown) => void) {
  return {
    onSuccess: () => {
      notifications.show({ color: 'green', message });
      onClose();
    },
    onError: refuse,
  };
}
