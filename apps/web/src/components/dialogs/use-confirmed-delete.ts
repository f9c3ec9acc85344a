import { useConfirmedActions, type MutateCallbacks } from './use-confirmed-actions';

/** The translated texts of one delete confirmation. */
export interface DeleteTexts {
  title: string;
  message: string;
  confirmLabel: string;
  /** The notification once deleted. */
  done: string;
}

/**
 * Deleting a row of a list screen: asks with `texts(item)`, deletes by `idOf(item)` through the
 * resource's delete mutation, notifies, and leaves a refusal in `failure` for the "Error" dialog.
 */
export function useConfirmedDelete<T>(
  mutation: { mutate: (id: string, callbacks: MutateCallbacks<unknown>) => void },
  idOf: (item: T) => string,
  texts: (item: T) => DeleteTexts,
) {
  const { confirm, failure, clearFailure } = useConfirmedActions();
  const confirmDelete = (item: T) => confirm({ ...texts(item), mutation, variables: idOf(item) });
  return { confirmDelete, failure, clearFailure };
}
