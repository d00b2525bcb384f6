import { ExtensionError, extensionContext, extensionPart, isTopic, type DiscoveredExtension, type MasterKeyring } from '@shop/platform';
import type { TopicSubscription } from './topic-subscription.ts';

/** One handler of `consumerHandlers`, checked: its name is its Kafka group id, so the `<id>.` prefix keeps extensions' groups apart. */
function checkedSubscription(extension: DiscoveredExtension, value: Partial<TopicSubscription>, index: number): TopicSubscription {
  const where = `shop.consumerHandlers: consumerHandlers[${index}]`;
  if (typeof value.name !== 'string' || !value.name.startsWith(`${extension.id}.`))
    throw new ExtensionError(extension.id, `${where} needs a name starting with "${extension.id}."`);
  if (!Array.isArray(value.topics) || value.topics.length === 0)
    throw new ExtensionError(extension.id, `${where} needs topics, a list of topic names`);
  const unknown = value.topics.find((topic) => !isTopic(String(topic)));
  if (unknown !== undefined)
    throw new ExtensionError(extension.id, `${where} reads ${String(unknown)}, which is not a topic of the catalogue`);
  if (typeof value.handle !== 'function') throw new ExtensionError(extension.id, `${where} needs a handle function`);
  return value as TopicSubscription;
}

/**
 * The topic subscriptions the extensions' `consumerHandlers` modules export (the list, or a function of
 * the extension's context giving it): the consumer runs each as a consumer group, the api's outbox
 * dispatcher runs them when there is no broker, as it does the core's.
 * @throws ExtensionError naming the extension and the field.
 */
export async function extensionSubscriptions(
  extensions: readonly DiscoveredExtension[],
  masterKeys: MasterKeyring,
): Promise<TopicSubscription[]> {
  const subscriptions: TopicSubscription[] = [];
  for (const extension of extensions) {
    const modulePath = extension.manifest.consumerHandlers;
    if (modulePath === undefined) continue;
    const handlers = await extensionPart(
      extension,
      'consumerHandlers',
      modulePath,
      'consumerHandlers',
      extensionContext(extension, masterKeys),
    );
    if (!Array.isArray(handlers)) throw new ExtensionError(extension.id, 'shop.consumerHandlers: "consumerHandlers" must be a list');
    subscriptions.push(...handlers.map((handler: Partial<TopicSubscription>, index) => checkedSubscription(extension, handler, index)));
  }
  return subscriptions;
}
