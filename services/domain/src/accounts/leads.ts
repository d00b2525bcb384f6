import type { Prisma } from '@shop/platform';
import { type DomainDeps, DomainError, idString, LIMITS, optionalText, type Tx } from '../kernel/index.ts';
import { assertChannelExists } from './channels.ts';
import { normalizeEmail } from './email.ts';

export interface CaptureLeadInput {
  readonly channelId: bigint;
  readonly email: string;
  readonly name?: string | null;
  /** Where the lead came from, e.g. `newsletter` or `trade_fair`: lower-case letters, digits and underscores. */
  readonly source: string;
}

const SOURCE = /^[a-z][a-z0-9_]*$/;

/** Records a prospect and emits shop.leads.created.v1 in the same transaction. A lead is not an account. */
export async function captureLead(tx: Tx, deps: DomainDeps, input: CaptureLeadInput): Promise<Prisma.LeadModel> {
  const email = normalizeEmail(input.email);
  const name = optionalText('name', input.name, LIMITS.leadName);
  const source = input.source.trim();
  if (!SOURCE.test(source) || source.length > LIMITS.leadSource.max) {
    throw new DomainError(
      'BAD_USER_INPUT',
      `source must be lower-case letters, digits and underscores, starting with a letter, at most ${LIMITS.leadSource.max} characters (e.g. newsletter)`,
      { field: 'source' },
    );
  }
  await assertChannelExists(tx, input.channelId);
  const lead = await tx.lead.create({ data: { channelId: input.channelId, email, name, source } });
  await deps.emit(tx, 'shop.leads.created.v1', {
    occurred_at: deps.now().toISOString(),
    lead_id: idString(lead.id),
    channel_id: idString(lead.channelId),
    email: lead.email,
    name: lead.name,
    source: lead.source,
  });
  return lead;
}
