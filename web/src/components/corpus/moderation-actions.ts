/**
 * The corpus page's changes, each confirmed first in a dialog that says what it will do and lists
 * what it touches (phrase → answer, rendered, never as CQ text): ban in the groups the answers were
 * learned in, ban everywhere, delete; one answer or a selection. Each is one moderation API call
 * per answer row, logged and undoable there.
 */
import { NText, useDialog, useMessage } from 'naive-ui';
import { h, ref, type VNode } from 'vue';
import { useI18n } from 'vue-i18n';
import { call, client, describeError } from '../../api';
import CqText from './CqText.vue';
import type { AnswerRow } from './types';

/** An answer row with the phrase it answers, as selected on the page. */
export interface Picked {
  row: AnswerRow;
  phrase: string;
}

type Kind = 'banHere' | 'banAll' | 'delete';
const LISTED = 8;

export function useModerationActions(options: {
  groupLabel: (id: number) => string;
  /** After a change: reload what the page shows. */
  reload: () => Promise<void>;
  /** After a change to a selection: the selection is done with. */
  selectionDone: () => void;
}) {
  const { t } = useI18n();
  const dialog = useDialog();
  const message = useMessage();
  const busy = ref<string | null>(null);
  const error = ref<string | null>(null);

  const item = (picked: Picked): VNode =>
    h('li', { 'data-test': 'confirm-item' }, [
      h(CqText, { text: picked.phrase }),
      ' → ',
      h(CqText, { text: picked.row.messages[0] ?? picked.row.keywords }),
      h(NText, { depth: 3 }, () => ` · ${options.groupLabel(picked.row.group_id)}`),
    ]);

  function confirm(title: string, lines: string[], picked: readonly Picked[], run: () => Promise<void>) {
    const listed = picked.slice(0, LISTED).map(item);
    if (picked.length > LISTED) listed.push(h('li', t('corpusBrowser.moreAnswers', { n: picked.length - LISTED })));
    dialog.warning({
      title,
      content: () =>
        h('div', { 'data-test': 'confirm-text' }, [
          ...lines.map((line) => h('p', { style: 'margin: 0 0 6px' }, line)),
          h('ul', { style: 'margin: 0; padding-left: 18px' }, listed),
        ]),
      positiveText: t('app.confirm'),
      negativeText: t('app.cancel'),
      onPositiveClick: () => {
        void run();
      },
    });
  }

  /** One call per row; says how many were done and why the others failed. */
  async function apply(key: string, rows: readonly AnswerRow[], one: (row: AnswerRow) => Promise<unknown>) {
    busy.value = key;
    error.value = null;
    const failures: string[] = [];
    for (const row of rows) {
      try {
        await one(row);
      } catch (failure) {
        failures.push(describeError(failure));
      }
    }
    busy.value = null;
    if (key === 'bulk') options.selectionDone();
    if (failures.length > 0)
      error.value = t('corpusBrowser.bulkFailed', { failed: failures.length, detail: failures[0] ?? '' });
    if (rows.length > failures.length)
      message.success(
        rows.length === 1 ? t('corpus.done') : t('corpusBrowser.bulkDone', { n: rows.length - failures.length }),
      );
    await options.reload();
  }

  const banHere = (row: AnswerRow) =>
    call(client.POST('/corpus/answers/{id}/ban', { params: { path: { id: row.id } }, body: { scope: 'group' } }));
  const banAll = (row: AnswerRow) =>
    call(client.POST('/corpus/answers/{id}/ban', { params: { path: { id: row.id } }, body: { scope: 'everywhere' } }));
  const remove = (row: AnswerRow) => call(client.DELETE('/corpus/answers/{id}', { params: { path: { id: row.id } } }));

  /** Asks, then does `kind` to the picked answers (one answer's rows, or a selection). */
  function ask(kind: Kind, picked: readonly Picked[], single: boolean) {
    const undoable = t('corpusBrowser.confirmUndoable');
    const groups = [...new Set(picked.map((p) => options.groupLabel(p.row.group_id)))].join('、');
    const first = picked[0]?.row.id ?? 0;
    if (kind === 'banHere') {
      const rows = picked.filter((p) => p.row.group_id !== 0);
      const skipped = picked.length - rows.length;
      const lines = [
        single
          ? t('corpusBrowser.confirmBanHere', { groups })
          : t('corpusBrowser.confirmBulkBanHere', { n: rows.length }),
        ...(skipped > 0 ? [t('corpusBrowser.skippedCommunity', { n: skipped })] : []),
        undoable,
      ];
      confirm(t('corpus.banHere'), lines, rows, () =>
        apply(
          single ? `ban-group-${first}` : 'bulk',
          rows.map((p) => p.row),
          banHere,
        ),
      );
    } else if (kind === 'banAll') {
      // One ban everywhere per phrase and answer, however many groups learned it.
      const seen = new Set<string>();
      const rows = picked.filter((p) => {
        const key = `${p.phrase}\u0000${p.row.keywords}`;
        if (seen.has(key) || p.row.status.state === 'banned_everywhere') return false;
        seen.add(key);
        return true;
      });
      const lines = [
        single ? t('corpusBrowser.confirmBanAll') : t('corpusBrowser.confirmBulkBanAll', { n: rows.length }),
        undoable,
      ];
      confirm(t('corpus.banAll'), lines, rows, () =>
        apply(
          single ? `ban-everywhere-${first}` : 'bulk',
          rows.map((p) => p.row),
          banAll,
        ),
      );
    } else {
      const lines = [
        single
          ? t('corpusBrowser.confirmDeleteAnswer', { groups })
          : t('corpusBrowser.confirmBulkDelete', { n: picked.length }),
        undoable,
      ];
      confirm(t('corpus.deleteAnswer'), lines, picked, () =>
        apply(
          single ? `delete-answer-${first}` : 'bulk',
          picked.map((p) => p.row),
          remove,
        ),
      );
    }
  }

  function deleteContext(id: number) {
    dialog.warning({
      title: t('corpus.deleteContext'),
      content: t('corpus.confirmDeleteContext'),
      positiveText: t('app.confirm'),
      negativeText: t('app.cancel'),
      onPositiveClick: () => {
        void (async () => {
          busy.value = `delete-context-${id}`;
          error.value = null;
          try {
            await call(client.DELETE('/corpus/contexts/{id}', { params: { path: { id } } }));
            message.success(t('corpus.done'));
          } catch (failure) {
            error.value = describeError(failure);
          } finally {
            busy.value = null;
          }
          await options.reload();
        })();
      },
    });
  }

  return { busy, error, ask, deleteContext };
}
