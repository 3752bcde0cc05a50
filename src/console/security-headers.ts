/**
 * Headers every console answer carries (docs/guide/troubleshooting.md#limits): no MIME sniffing, no framing, no
 * referrer, and no caching unless a route chose its own policy (an API answer holds corpus text
 * and settings, which a shared cache or the browser's disk must not keep).
 */
import type { onSendHookHandler } from 'fastify';

const ALWAYS: Readonly<Record<string, string>> = {
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-resource-policy': 'same-origin',
};

export const securityHeaders: onSendHookHandler = (_request, reply, payload, done) => {
  for (const [name, value] of Object.entries(ALWAYS)) if (!reply.hasHeader(name)) reply.header(name, value);
  if (!reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
  done(null, payload);
};
