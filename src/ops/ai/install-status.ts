/**
 * Whether an AI checkout is here and what the console may do with it. Installs are refused
 * outright (clone, bootstrap and update alike) when Chorus runs in a container, when the AI
 * service is configured on another host, or when an AI service already answers without a checkout
 * here (it is run by someone else); in those cases the runtime is not ours to touch.
 */
import type { DeploymentKind } from '../deployment.ts';
import type { CheckoutFacts, UpstreamCheck } from './checkout.ts';
import type { AiEndpoint } from './endpoint.ts';
import { BOOTSTRAP_SCRIPT } from './limits.ts';

export type AiLayout = 'missing' | 'managed' | 'sibling' | 'external';

export interface InstallStatus {
  /** An AI checkout was found, or an AI service answers without one. */
  detected: boolean;
  layout: AiLayout;
  /** The checkout in use, or null. */
  ai_root: string | null;
  managed_root: string;
  /** The managed folder carries Chorus's marker (it cloned it). */
  is_managed: boolean;
  bootstrap_script: string;
  bootstrap_ready: boolean;
  git_available: boolean;
  /** CHORUS_AI_REPO_URL, credentials masked. */
  git_url: string;
  deployment: DeploymentKind;
  endpoint: AiEndpoint;
  forbidden: boolean;
  forbidden_reasons: string[];
  /** The same reasons as codes with params, which the web console words (`ai.install.forbiddenCodes`). */
  forbidden_codes: { code: 'in_container' | 'other_host' | 'external'; params: Record<string, string> }[];
  can_clone: boolean;
  can_bootstrap: boolean;
  can_update: boolean;
  /** Null when not checked (no managed checkout) or when the check failed. */
  has_update: boolean | null;
  installed_ref: string | null;
  latest_ref: string | null;
  update_check_error: string | null;
}

export interface StatusFacts {
  managed: CheckoutFacts;
  sibling: CheckoutFacts | null;
  /** Whether an AI service answered its health check (asked only when no checkout is here). */
  serviceAnswers: boolean;
  gitAvailable: boolean;
  gitUrl: string;
  deployment: DeploymentKind;
  endpoint: AiEndpoint;
  endpointIsLocal: boolean;
  baseUrl: string;
  upstream: UpstreamCheck | null;
}

export function layoutOf(managed: CheckoutFacts, sibling: CheckoutFacts | null, serviceAnswers: boolean): AiLayout {
  if (managed.git || managed.script) return 'managed';
  if (sibling?.script) return 'sibling';
  return serviceAnswers ? 'external' : 'missing';
}

export function installStatus(facts: StatusFacts): InstallStatus {
  const layout = layoutOf(facts.managed, facts.sibling, facts.serviceAnswers);
  const checkout = layout === 'managed' ? facts.managed : layout === 'sibling' ? facts.sibling : null;
  const reasons: string[] = [];
  const codes: InstallStatus['forbidden_codes'] = [];
  if (facts.deployment === 'container') {
    reasons.push(
      'Chorus runs in a container: run the AI service as its own container, the console does not install it',
    );
    codes.push({ code: 'in_container', params: {} });
  }
  if (!facts.endpointIsLocal) {
    reasons.push(`the AI service is configured on another host (${facts.endpoint.host}): install it there`);
    codes.push({ code: 'other_host', params: { host: facts.endpoint.host } });
  }
  if (layout === 'external') {
    reasons.push(`an AI service already answers at ${facts.baseUrl} and is managed outside Chorus`);
    codes.push({ code: 'external', params: { url: facts.baseUrl } });
  }
  const forbidden = reasons.length > 0;
  const managedCheckout = layout === 'managed' && facts.managed.git && facts.managed.managed;
  return {
    detected: layout !== 'missing',
    layout,
    ai_root: checkout?.root ?? null,
    managed_root: facts.managed.root,
    is_managed: facts.managed.managed,
    bootstrap_script: BOOTSTRAP_SCRIPT,
    bootstrap_ready: checkout?.script ?? false,
    git_available: facts.gitAvailable,
    git_url: facts.gitUrl,
    deployment: facts.deployment,
    endpoint: facts.endpoint,
    forbidden,
    forbidden_reasons: reasons,
    forbidden_codes: codes,
    can_clone: !forbidden && facts.gitAvailable && layout === 'missing' && !facts.managed.occupied,
    can_bootstrap: !forbidden && (checkout?.script ?? false),
    can_update: !forbidden && facts.gitAvailable && managedCheckout && facts.managed.script,
    has_update: facts.upstream?.has_update ?? null,
    installed_ref: facts.upstream?.installed_ref ?? null,
    latest_ref: facts.upstream?.latest_ref ?? null,
    update_check_error: facts.upstream?.error ?? null,
  };
}

export const INSTALL_ACTIONS = ['clone', 'bootstrap', 'clone_and_bootstrap', 'update'] as const;
export type InstallAction = (typeof INSTALL_ACTIONS)[number];

/** Why `action` cannot start now, or null when it can. */
export function refusalOf(status: InstallStatus, action: InstallAction): string | null {
  if (status.forbidden) return `AI runtime installs are disabled here: ${status.forbidden_reasons.join('; ')}`;
  const cloneNeeded = (action === 'clone' || action === 'clone_and_bootstrap') && status.layout === 'missing';
  if (cloneNeeded) {
    if (!status.git_available) return 'git is not available on this machine; install git to clone the AI repository';
    if (!status.can_clone)
      return `${status.managed_root} exists and is not an AI checkout; move it away to clone there`;
  }
  if (action === 'bootstrap' && status.ai_root === null) return 'no AI checkout here: clone it first';
  if (
    (action === 'bootstrap' || action === 'clone_and_bootstrap') &&
    status.ai_root !== null &&
    !status.bootstrap_ready
  ) {
    return `${BOOTSTRAP_SCRIPT} not found in ${status.ai_root}`;
  }
  if (action === 'update' && !status.can_update) {
    if (!status.git_available) return 'git is not available on this machine';
    return `only the checkout Chorus cloned (${status.managed_root}) can be updated here`;
  }
  return null;
}
