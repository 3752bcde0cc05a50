/**
 * The console's own message compiler for vue-i18n: its messages use `{name}` (and `{0}`)
 * placeholders and `a | b | c` plural forms only, so the runtime-only vue-i18n build (without its
 * ~35 KB compiler, see web/vite.config.ts) is enough. A message without either is returned as it
 * is; `@` and the like are plain characters here.
 */
import type { MessageCompiler, MessageContext } from 'vue-i18n';

const PLACEHOLDER = /\{\s*([\w.]+)\s*\}/g;

export const compileMessage: MessageCompiler = (message, { key, onError }) => {
  if (typeof message !== 'string') {
    onError?.(Object.assign(new SyntaxError(`message ${key}: not a string`), { code: 0 }));
    return () => key;
  }
  const forms = message.includes('|') ? message.split('|').map((form) => form.trim()) : null;
  if (forms === null && !message.includes('{')) return () => message;
  return (ctx: MessageContext) => fill(forms === null ? message : String(ctx.plural(forms)), ctx);
};

function fill(text: string, ctx: MessageContext): string {
  return text.replace(PLACEHOLDER, (_whole, name: string) => {
    const value = /^\d+$/.test(name) ? ctx.list(Number(name)) : ctx.named(name);
    return value === undefined || value === null ? '' : String(value);
  });
}
