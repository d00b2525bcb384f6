import { authorizeStaff } from '@shop/domain/auth';
import { cancelReturn, closeReturn, submitReturnWithCreditInAdvance } from '@shop/domain/flows';
import {
  type CreateReturnDraft,
  createReturnDraft,
  findReturn,
  type ReceiveReturn,
  receiveReturn,
  submitReturn,
  type ReturnActor,
  type ReturnLineInput,
} from '@shop/domain/returns';
import type {
  CreateReturnInput,
  ReceiveReturnInput,
  Resolvers,
  ReturnLineInput as ReturnLineArgument,
} from '../graphql/generated/resolver-types.ts';
import { parseId } from '../graphql/ids.ts';
import { inputMapper, same } from '../graphql/inputs.ts';
import { staffField } from '../graphql/staff-fields.ts';
import { returnView } from './views.ts';

/** Each line's errors name its place, e.g. lines[2].orderLineId. */
const linesOf = (lines: readonly ReturnLineArgument[], field: string): ReturnLineInput[] =>
  lines.map((line, index) =>
    inputMapper<ReturnLineArgument, ReturnLineInput>({
      orderLineId: (id) => parseId(id, `${field}[${index}].orderLineId`),
      quantity: same,
    })(line),
  );

const returnDraft = inputMapper<CreateReturnInput, CreateReturnDraft>({ orderId: parseId, lines: linesOf, reason: same });
const returnReceipt = inputMapper<ReceiveReturnInput, ReceiveReturn>({ returnId: parseId, lines: linesOf, idempotencyKey: same });

const draftOf = (input: CreateReturnInput, actor: ReturnActor) => ({ ...returnDraft(input), actor });

const staff = (staffUserId: bigint): ReturnActor => ({ kind: 'staff', staffUserId });

export const returnResolvers: Resolvers = {
  Query: {
    returnAuthorization: staffField(async ({ id }, { tx, staffUserId }) =>
      returnView(await findReturn(tx, parseId(id, 'id'), staff(staffUserId))),
    ),
    async myReturnAuthorization(_root, { id }, context) {
      const { customerId } = context.shop.customer();
      return returnView(await findReturn(context.shop.services.prisma, parseId(id, 'id'), { kind: 'customer', customerId }));
    },
  },
  Mutation: {
    async createMyReturn(_root, { input }, context) {
      const { customerId } = context.shop.customer();
      return returnView(
        await context.shop.services.transaction((tx) =>
          createReturnDraft(tx, context.shop.services.deps, draftOf(input, { kind: 'customer', customerId })),
        ),
      );
    },
    async submitMyReturn(_root, { id }, context) {
      const { customerId } = context.shop.customer();
      return returnView(
        await context.shop.services.transaction((tx) =>
          submitReturn(tx, context.shop.services.deps, parseId(id, 'id'), { kind: 'customer', customerId }),
        ),
      );
    },
    createReturn: staffField(async ({ input }, { tx, staffUserId }, context) =>
      returnView(await createReturnDraft(tx, context.shop.services.deps, draftOf(input, staff(staffUserId)))),
    ),
    submitReturn: staffField(async ({ id, creditInAdvance }, { tx, staffUserId }, context) => {
      const returnId = parseId(id, 'id');
      if (creditInAdvance !== true) return returnView(await submitReturn(tx, context.shop.services.deps, returnId, staff(staffUserId)));
      // Credit in advance is a refund: it takes the refunder's permission too.
      await authorizeStaff(tx, context.shop.principal, 'payments.refund');
      return returnView((await submitReturnWithCreditInAdvance(tx, context.shop.services.deps, returnId, staffUserId)).rma);
    }),
    receiveReturn: staffField(async ({ input }, { tx, staffUserId }, context) => {
      const { rma } = await receiveReturn(tx, context.shop.services.deps, { ...returnReceipt(input), staffUserId });
      return returnView(rma);
    }),
    cancelReturn: staffField(async ({ id }, { tx }, context) =>
      returnView(await cancelReturn(tx, context.shop.services.deps, parseId(id, 'id'))),
    ),
    closeReturn: staffField(async ({ id }, { tx }, context) =>
      returnView(await closeReturn(tx, context.shop.services.deps, parseId(id, 'id'))),
    ),
  },
};
