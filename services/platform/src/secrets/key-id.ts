// Defined in @shop/runtime, which the operator shares: it reports the ids of the keys it generates.
export { keyIdOf, masterKeyIdOf } from '@shop/runtime';
