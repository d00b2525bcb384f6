export type * from './shop.generated.ts';
