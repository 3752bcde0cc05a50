/**
 * What the console's catchphrase routes need (src/console/routes/agent-catchphrases.ts), built by
 * src/app/agent-catchphrases-wiring.ts over the store, the miner and the style hints.
 */
import type { ActivityActor } from '../../domain/activity.ts';
import type {
  CatchphraseAction,
  CatchphraseFilter,
  CatchphrasePage,
  ResolveResult,
} from '../../store/agent-catchphrases-store.ts';
import type { MiningReport } from './miner.ts';

export interface CatchphrasesPort {
  list(filter: CatchphraseFilter): Promise<CatchphrasePage>;
  /** Approve or reject (recorded in the activity log; the same status again changes nothing). */
  resolve(id: number, action: CatchphraseAction, actor: ActivityActor, nowSec: number): Promise<ResolveResult>;
  /** Back to a candidate (recorded; the resolve's entry marked undone). */
  undo(id: number, actor: ActivityActor, nowSec: number): Promise<ResolveResult>;
  /** Mine one group now (joins a mining of that group under way). */
  mine(groupId: number): Promise<MiningReport>;
}
