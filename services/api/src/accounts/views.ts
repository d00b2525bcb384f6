import type { Prisma } from '@shop/platform';
import type { CustomerAccount } from '@shop/domain/accounts';
import { iso } from '../graphql/iso.ts';

export const customerView = (customer: CustomerAccount) => ({
  id: customer.id.toString(),
  channelId: customer.channelId.toString(),
  email: customer.email,
  firstName: customer.firstName,
  lastName: customer.lastName,
  isBusiness: customer.isBusiness,
  approvalStatus: customer.approvalStatus,
  createdAt: iso(customer.createdAt),
});

export const leadView = (lead: Prisma.LeadModel) => ({
  id: lead.id.toString(),
  email: lead.email,
  name: lead.name,
  source: lead.source,
  createdAt: iso(lead.createdAt),
});
