// GraphQL inputs into the domain's inputs, one converter per field, so the compiler holds the two together.

/**
 * How each field of the GraphQL input `G` becomes the field of the same name of the domain's input `D`.
 * Every field of `G` needs a converter, so a field added to the schema and not handled does not compile;
 * a field the domain does not take is typed `never`, which no converter fits.
 */
export type InputFields<G, D> = {
  readonly [K in keyof G]-?: K extends keyof D ? (value: G[K], field: K & string) => D[K] : never;
};

/** The domain input's fields the GraphQL input carries; the caller adds those it takes from elsewhere (the staff user). */
export type MappedInput<G, D> = Pick<D, keyof G & keyof D>;

/** Converts each field of a GraphQL input; a converter's undefined leaves the field out (absent stays absent). */
export function inputMapper<G extends object, D>(fields: InputFields<G, D>): (input: G) => MappedInput<G, D> {
  const converters = Object.entries(fields) as [keyof G & string, (value: unknown, field: string) => unknown][];
  return (input) =>
    Object.fromEntries(
      converters.flatMap(([field, convert]) => {
        const value = convert(input[field], field);
        return value === undefined ? [] : [[field, value]];
      }),
    ) as MappedInput<G, D>;
}

/** A field the domain takes as GraphQL gives it (a patch's null included: the domain says where null clears). */
export const same = <T>(value: T): T => value;

/** An optional field of a create input: null, which GraphQL allows for any optional field, is left out like absent. */
export const optional = <T>(value: T | null | undefined): T | undefined => value ?? undefined;

/** An optional field the domain takes converted: null and absent are both left out. */
export const optionalOf =
  <T, R>(convert: (value: T) => R) =>
  (value: T | null | undefined): R | undefined =>
    value == null ? undefined : convert(value);
