/**
 * The console's confirmation before a lasting action (web/src/components/confirm.ts): waits for
 * the dialog, checks it names what will happen, and confirms (or cancels) it.
 */
import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

export async function answerConfirm(
  page: Page,
  says: RegExp,
  button: string,
  options: { cancel?: boolean } = {},
): Promise<void> {
  const dialog = page.getByRole('dialog');
  await dialog.waitFor();
  assert.match(await dialog.innerText(), says, 'the confirmation names what will happen');
  await dialog.getByRole('button', { name: options.cancel ? '取消' : button, exact: true }).click();
  await dialog.waitFor({ state: 'hidden' });
}
