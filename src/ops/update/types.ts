/** What the update domain answers: checks, history, a git apply request. */
import type { DeploymentKind } from '../deployment.ts';
import type { UpdateTrack } from './feed.ts';
import type { GitHead, GitMode, GitStrategy, HistoryItem } from './git-source.ts';

export interface GitApply {
  mode: GitMode;
  ref: string;
  strategy: GitStrategy;
  restart: boolean;
}

export interface HistoryPage {
  mode: GitMode;
  deployment: DeploymentKind;
  items: HistoryItem[];
  head: GitHead | null;
  /** Why the list may be stale or empty (git fetch or the feed failed). */
  error: string | null;
}

export interface CheckBase {
  configured: boolean;
  track: UpdateTrack;
  current_version: string;
  latest_tag: string | null;
  latest_version: string | null;
  has_update: boolean;
  release_url: string;
  release_name: string;
  release_notes: string;
  published_at: string | null;
  error: string | null;
  /** Unix milliseconds. */
  checked_at: number;
}

export interface WebCheck extends CheckBase {
  /** The console this bot carries (its own version). */
  bundled_version: string;
  /** A web-console release installed from the feed, or null. */
  installed_version: string | null;
  /** Which of the two is served: the installed one only while it is newer (docs/rules.md#web-console-pick). */
  serving: 'bundled' | 'installed';
  asset_url: string;
}

export interface BotCheck extends CheckBase {
  deployment: DeploymentKind;
  running_version: string;
  previous_version: string | null;
  /** A newer release is installed and runs after a restart. */
  restart_pending: boolean;
  restart_available: boolean;
  development_build: boolean;
  can_apply: boolean;
  /** Why apply is not possible here, and what to do instead. */
  apply_refusal: string | null;
  /** The code of `apply_refusal` (src/ops/update/refusals.ts). */
  apply_refusal_code: 'no_feed' | 'source_deployment' | 'container_image' | 'no_release_folder' | null;
  can_rollback: boolean;
}
