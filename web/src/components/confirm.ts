/**
 * The console's confirmation before an action with lasting effect: a dialog that names what will
 * happen, answered with true (the operator confirmed) or false (cancelled, closed, Esc). Every
 * page asks through this one helper so the wording and the buttons are the same everywhere.
 */
import { useDialog } from 'naive-ui';
import { useI18n } from 'vue-i18n';

export interface ConfirmOptions {
  /** What the action is (the dialog's title). */
  title: string;
  /** What will happen, in a sentence. */
  content: string;
  /** The confirming button's text (default 确认 / Confirm). */
  positiveText?: string;
}

export function useConfirm(): (options: ConfirmOptions) => Promise<boolean> {
  const dialog = useDialog();
  const { t } = useI18n();
  return (options) =>
    new Promise((resolve) => {
      let answered = false;
      const answer = (value: boolean) => {
        if (answered) return;
        answered = true;
        resolve(value);
      };
      dialog.warning({
        title: options.title,
        content: options.content,
        positiveText: options.positiveText ?? t('app.confirm'),
        negativeText: t('app.cancel'),
        onPositiveClick: () => answer(true),
        onNegativeClick: () => answer(false),
        onClose: () => answer(false),
        onMaskClick: () => answer(false),
        onEsc: () => answer(false),
        onAfterLeave: () => answer(false),
      });
    });
}
