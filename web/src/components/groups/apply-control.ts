// A group or user control applied the moment it is flipped (docs/guide/groups.md#the-groups-page): the
// change is saved at once, and a toast says what changed with an 撤销 button for a few seconds
// that saves the previous value back through the same route (both saves land in the activity log).
import { NButton, useMessage } from 'naive-ui';
import { h } from 'vue';
import { useI18n } from 'vue-i18n';
import { describeError } from '../../api';

/** How long the undo toast stays: long enough to notice a slip, short enough not to pile up. */
export const UNDO_MS = 6000;

export interface AppliedWords {
  /** The control's label as the page shows it. */
  field: string;
  /** The new and the previous value in words. */
  value: string;
  previous: string;
}

export function useApplyControl() {
  const { t } = useI18n();
  const message = useMessage();

  /** Saves `patch` (throws what the save throws), then offers to save `previous` back. */
  async function apply<P>(save: (patch: P) => Promise<void>, patch: P, previous: P, words: AppliedWords) {
    await save(patch);
    const undo = async () => {
      toast.destroy();
      try {
        await save(previous);
        message.info(t('groups.undone', { field: words.field, value: words.previous }));
      } catch (failure) {
        message.error(describeError(failure));
      }
    };
    const toast = message.success(
      () =>
        h('span', { 'data-test': 'undo-toast' }, [
          t('groups.applied', { field: words.field, value: words.value }),
          h(NButton, { text: true, type: 'primary', style: 'margin-left: 12px', onClick: () => void undo() }, () =>
            t('groups.undo'),
          ),
        ]),
      { duration: UNDO_MS, closable: true },
    );
  }

  /** A switch's state in words. */
  const onOff = (value: boolean) => t(value ? 'groups.on' : 'groups.off');
  return { apply, onOff };
}
