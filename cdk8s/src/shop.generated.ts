// Generated from schemas/crd/shop.v1alpha1.json by generate-crd.ts. Do not edit.

/**
 * A Shop: one deployment of the commerce platform (api, worker, consumer) against its own database, cache and broker.
 */
export interface Shop {
  /**
   * shop.dev/v1alpha1
   */
  apiVersion?: string;
  /**
   * Shop
   */
  kind?: string;
  metadata?: {
    name?: string;
    namespace?: string;
    uid?: string;
    generation?: number;
    resourceVersion?: string;
    labels?: Record<string, string>;
    annotations?: Record<string, string>;
    [field: string]: unknown;
  };
  spec: ShopSpec;
  status?: ShopStatus;
}
/**
 * What to run: the image, each component's size, configuration, secrets, extensions, monitoring and key rotation.
 */
export interface ShopSpec {
  /**
   * The platform image, the same for api, worker, consumer and the migration Job.
   */
  image: {
    /**
     * Image repository, e.g. registry.example.com/shop/platform.
     */
    repository: string;
    /**
     * Image tag: the platform version. A new tag migrates the database once, then rolls out api, worker and consumer in that order.
     */
    tag: string;
    /**
     * Pins the image: the pods run repository@digest, whatever the tag points to now; the tag still names the version (the migration Job, the labels). status.migratedDigest records the digest the migration Job ran.
     */
    digest?: string;
    /**
     * When the kubelet pulls the image.
     */
    pullPolicy?: "Always" | "IfNotPresent" | "Never";
  };
  /**
   * Scheduling and identity for every pod of the Shop (api, worker, consumer and the Jobs); a field set on a component replaces the one here.
   */
  podDefaults?: {
    /**
     * Secrets in the Shop's namespace the kubelet pulls the image with, for the Shop's pods, as in a Pod's imagePullSecrets.
     */
    imagePullSecrets?: {
      /**
       * Name of the Secret.
       */
      name: string;
    }[];
    /**
     * The ServiceAccount the Shop's pods run as, e.g. one bound to a cloud identity. Its token is still not mounted: the processes never call the Kubernetes API.
     */
    serviceAccountName?: string;
    /**
     * Node labels the Shop's pods must be scheduled on, as in a Pod's nodeSelector.
     */
    nodeSelector?: {
      [k: string]: string;
    };
    /**
     * Taints the Shop's pods tolerate, as in a Pod's tolerations.
     */
    tolerations?: {
      [k: string]: unknown;
    }[];
    /**
     * Node and pod affinity of the Shop's pods, as in a Pod's affinity.
     */
    affinity?: {
      [k: string]: unknown;
    };
    /**
     * How the Shop's pods spread over zones or nodes, as in a Pod's topologySpreadConstraints; their labelSelector may select the component's pods by app.kubernetes.io/instance and app.kubernetes.io/component.
     */
    topologySpreadConstraints?: {
      [k: string]: unknown;
    }[];
    /**
     * The PriorityClass of the Shop's pods.
     */
    priorityClassName?: string;
  };
  /**
   * The api: its pods, their resources and where they run. Scheduling fields set here replace those of podDefaults, field by field.
   */
  api?: {
    /**
     * Number of api pods. The api scales horizontally. Not applied while api.autoscaling is set.
     */
    replicas?: number;
    /**
     * A HorizontalPodAutoscaler for the api (<shop>-api) on CPU utilization, measured against the CPU requests. When set, it owns the Deployment's replicas and api.replicas is not applied.
     */
    autoscaling?: {
      /**
       * Fewest pods.
       */
      minReplicas: number;
      /**
       * Most pods.
       */
      maxReplicas: number;
      /**
       * Average CPU use, in percent of the requests, the autoscaler keeps the pods at; 70 when unset.
       */
      targetCPUUtilizationPercentage?: number;
    };
    /**
     * CPU and memory for each api container, as in a Pod's resources. When unset, the operator's defaults (docs/operator.md).
     */
    resources?: {
      /**
       * Guaranteed resources.
       */
      requests?: {
        /**
         * CPU request, e.g. 250m.
         */
        cpu?: number | string;
        /**
         * Memory request, e.g. 256Mi.
         */
        memory?: number | string;
      };
      /**
       * Maximum resources.
       */
      limits?: {
        /**
         * CPU limit.
         */
        cpu?: number | string;
        /**
         * Memory limit, e.g. 512Mi.
         */
        memory?: number | string;
      };
    };
    /**
     * Secrets in the Shop's namespace the kubelet pulls the image with, for the api pods and the migration and rewrap Jobs' pods, as in a Pod's imagePullSecrets.
     */
    imagePullSecrets?: {
      /**
       * Name of the Secret.
       */
      name: string;
    }[];
    /**
     * The ServiceAccount the api pods and the migration and rewrap Jobs' pods run as, e.g. one bound to a cloud identity. Its token is still not mounted: the processes never call the Kubernetes API.
     */
    serviceAccountName?: string;
    /**
     * Node labels the api pods and the migration and rewrap Jobs' pods must be scheduled on, as in a Pod's nodeSelector.
     */
    nodeSelector?: {
      [k: string]: string;
    };
    /**
     * Taints the api pods and the migration and rewrap Jobs' pods tolerate, as in a Pod's tolerations.
     */
    tolerations?: {
      [k: string]: unknown;
    }[];
    /**
     * Node and pod affinity of the api pods and the migration and rewrap Jobs' pods, as in a Pod's affinity.
     */
    affinity?: {
      [k: string]: unknown;
    };
    /**
     * How the api pods and the migration and rewrap Jobs' pods spread over zones or nodes, as in a Pod's topologySpreadConstraints; their labelSelector may select the component's pods by app.kubernetes.io/instance and app.kubernetes.io/component.
     */
    topologySpreadConstraints?: {
      [k: string]: unknown;
    }[];
    /**
     * The PriorityClass of the api pods and the migration and rewrap Jobs' pods.
     */
    priorityClassName?: string;
  };
  /**
   * The worker: its pods, their resources and where they run. Scheduling fields set here replace those of podDefaults, field by field.
   */
  worker?: {
    /**
     * Number of worker pods. Workflow work is shared among workers automatically. The worker runs only with secrets.workflowHost set; without it the Shop runs no worker pods and the api runs the periodic sweeps itself. Not applied while worker.autoscaling is set.
     */
    replicas?: number;
    /**
     * A HorizontalPodAutoscaler for the worker (<shop>-worker) on CPU utilization, measured against the CPU requests. When set, it owns the Deployment's replicas and worker.replicas is not applied.
     */
    autoscaling?: {
      /**
       * Fewest pods.
       */
      minReplicas: number;
      /**
       * Most pods.
       */
      maxReplicas: number;
      /**
       * Average CPU use, in percent of the requests, the autoscaler keeps the pods at; 70 when unset.
       */
      targetCPUUtilizationPercentage?: number;
    };
    /**
     * CPU and memory for each worker container, as in a Pod's resources. When unset, the operator's defaults (docs/operator.md).
     */
    resources?: {
      /**
       * Guaranteed resources.
       */
      requests?: {
        /**
         * CPU request, e.g. 250m.
         */
        cpu?: number | string;
        /**
         * Memory request, e.g. 256Mi.
         */
        memory?: number | string;
      };
      /**
       * Maximum resources.
       */
      limits?: {
        /**
         * CPU limit.
         */
        cpu?: number | string;
        /**
         * Memory limit, e.g. 512Mi.
         */
        memory?: number | string;
      };
    };
    /**
     * Secrets in the Shop's namespace the kubelet pulls the image with, for the worker pods, as in a Pod's imagePullSecrets.
     */
    imagePullSecrets?: {
      /**
       * Name of the Secret.
       */
      name: string;
    }[];
    /**
     * The ServiceAccount the worker pods run as, e.g. one bound to a cloud identity. Its token is still not mounted: the processes never call the Kubernetes API.
     */
    serviceAccountName?: string;
    /**
     * Node labels the worker pods must be scheduled on, as in a Pod's nodeSelector.
     */
    nodeSelector?: {
      [k: string]: string;
    };
    /**
     * Taints the worker pods tolerate, as in a Pod's tolerations.
     */
    tolerations?: {
      [k: string]: unknown;
    }[];
    /**
     * Node and pod affinity of the worker pods, as in a Pod's affinity.
     */
    affinity?: {
      [k: string]: unknown;
    };
    /**
     * How the worker pods spread over zones or nodes, as in a Pod's topologySpreadConstraints; their labelSelector may select the component's pods by app.kubernetes.io/instance and app.kubernetes.io/component.
     */
    topologySpreadConstraints?: {
      [k: string]: unknown;
    }[];
    /**
     * The PriorityClass of the worker pods.
     */
    priorityClassName?: string;
  };
  /**
   * The consumer: its pods, their resources and where they run. Scheduling fields set here replace those of podDefaults, field by field.
   */
  consumer?: {
    /**
     * Number of consumer pods. At most 1: a consumer group may run in one instance only (0 pauses consumption).
     */
    replicas?: number;
    /**
     * CPU and memory for each consumer container, as in a Pod's resources. When unset, the operator's defaults (docs/operator.md).
     */
    resources?: {
      /**
       * Guaranteed resources.
       */
      requests?: {
        /**
         * CPU request, e.g. 250m.
         */
        cpu?: number | string;
        /**
         * Memory request, e.g. 256Mi.
         */
        memory?: number | string;
      };
      /**
       * Maximum resources.
       */
      limits?: {
        /**
         * CPU limit.
         */
        cpu?: number | string;
        /**
         * Memory limit, e.g. 512Mi.
         */
        memory?: number | string;
      };
    };
    /**
     * Secrets in the Shop's namespace the kubelet pulls the image with, for the consumer pods, as in a Pod's imagePullSecrets.
     */
    imagePullSecrets?: {
      /**
       * Name of the Secret.
       */
      name: string;
    }[];
    /**
     * The ServiceAccount the consumer pods run as, e.g. one bound to a cloud identity. Its token is still not mounted: the processes never call the Kubernetes API.
     */
    serviceAccountName?: string;
    /**
     * Node labels the consumer pods must be scheduled on, as in a Pod's nodeSelector.
     */
    nodeSelector?: {
      [k: string]: string;
    };
    /**
     * Taints the consumer pods tolerate, as in a Pod's tolerations.
     */
    tolerations?: {
      [k: string]: unknown;
    }[];
    /**
     * Node and pod affinity of the consumer pods, as in a Pod's affinity.
     */
    affinity?: {
      [k: string]: unknown;
    };
    /**
     * How the consumer pods spread over zones or nodes, as in a Pod's topologySpreadConstraints; their labelSelector may select the component's pods by app.kubernetes.io/instance and app.kubernetes.io/component.
     */
    topologySpreadConstraints?: {
      [k: string]: unknown;
    }[];
    /**
     * The PriorityClass of the consumer pods.
     */
    priorityClassName?: string;
  };
  /**
   * Plain configuration passed to every component as environment variables, e.g. LOG_LEVEL or EVENT_SCHEMA_MODE. Secrets go in spec.secrets, never here.
   */
  config?: {
    [k: string]: string;
  };
  /**
   * Secret references for every secret variable. SECRET_KEY and SECRETS_MASTER_KEY are generated and kept by the operator when not given.
   */
  secrets: {
    /**
     * DATABASE_URL: the PostgreSQL connection string. Names a key of a Secret in the Shop's namespace.
     */
    databaseUrl: {
      /**
       * Name of the Secret.
       */
      name: string;
      /**
       * Key within the Secret.
       */
      key: string;
    };
    /**
     * CACHE_URL: the Redis-compatible cache URL. Names a key of a Secret in the Shop's namespace.
     */
    cacheUrl: {
      /**
       * Name of the Secret.
       */
      name: string;
      /**
       * Key within the Secret.
       */
      key: string;
    };
    /**
     * BROKER_ADDRESS: Kafka bootstrap servers. Names a key of a Secret in the Shop's namespace.
     */
    brokerAddress: {
      /**
       * Name of the Secret.
       */
      name: string;
      /**
       * Key within the Secret.
       */
      key: string;
    };
    /**
     * WORKFLOW_HOST: the Temporal frontend address; unset turns workflows off. Names a key of a Secret in the Shop's namespace.
     */
    workflowHost?: {
      /**
       * Name of the Secret.
       */
      name: string;
      /**
       * Key within the Secret.
       */
      key: string;
    };
    /**
     * SECRET_KEY: the JWT signing secret; generated when unset. Names a key of a Secret in the Shop's namespace.
     */
    secretKey?: {
      /**
       * Name of the Secret.
       */
      name: string;
      /**
       * Key within the Secret.
       */
      key: string;
    };
    /**
     * SECRETS_MASTER_KEY: the stored-secrets key; generated (and rotated when keyRotation.enabled) by the operator when unset. A supplied key is never rotated by the operator. Names a key of a Secret in the Shop's namespace.
     */
    secretsMasterKey?: {
      /**
       * Name of the Secret.
       */
      name: string;
      /**
       * Key within the Secret.
       */
      key: string;
    };
    /**
     * SECRETS_MASTER_KEY_ROTATING_FROM: earlier stored-secrets keys (comma-separated, base64) still accepted for reading while you rotate a supplied secretsMasterKey by hand. Only with secretsMasterKey: for a generated key the operator keeps the earlier keys itself. The operator runs the rewrap Job once per set of keys and reports in KeysCurrent whether rows are left under these. Names a key of a Secret in the Shop's namespace.
     */
    secretsMasterKeyRotatingFrom?: {
      /**
       * Name of the Secret.
       */
      name: string;
      /**
       * Key within the Secret.
       */
      key: string;
    };
    /**
     * ADMIN_SEARCH_API_KEY: the admin search engine's admin key. Names a key of a Secret in the Shop's namespace.
     */
    adminSearchApiKey?: {
      /**
       * Name of the Secret.
       */
      name: string;
      /**
       * Key within the Secret.
       */
      key: string;
    };
    /**
     * STOREFRONT_SEARCH_API_KEY: the storefront search engine's admin key. Names a key of a Secret in the Shop's namespace.
     */
    storefrontSearchApiKey?: {
      /**
       * Name of the Secret.
       */
      name: string;
      /**
       * Key within the Secret.
       */
      key: string;
    };
    /**
     * STOREFRONT_SEARCH_ONLY_KEY: the search-only key used for scoped keys. Names a key of a Secret in the Shop's namespace.
     */
    storefrontSearchOnlyKey?: {
      /**
       * Name of the Secret.
       */
      name: string;
      /**
       * Key within the Secret.
       */
      key: string;
    };
    /**
     * S3_ACCESS_KEY: object storage access key. Names a key of a Secret in the Shop's namespace.
     */
    s3AccessKey?: {
      /**
       * Name of the Secret.
       */
      name: string;
      /**
       * Key within the Secret.
       */
      key: string;
    };
    /**
     * S3_SECRET_KEY: object storage secret key. Names a key of a Secret in the Shop's namespace.
     */
    s3SecretKey?: {
      /**
       * Name of the Secret.
       */
      name: string;
      /**
       * Key within the Secret.
       */
      key: string;
    };
  };
  /**
   * Where uploaded files (product images) live, rendered as variables into the api, worker and consumer (docs/storage.md). The pods run with NODE_ENV=production, which never keeps files on a pod's disk: without s3 (or another storage extension configured through config), uploads are off. The keys are secrets.s3AccessKey and secrets.s3SecretKey. These fields win over the same variables in config.
   */
  fileStorage?: {
    /**
     * FILE_STORAGE_PROVIDER: the provider to use, by the name it registered under (s3 for the in-tree extension). Unset: the last registered that is configured, which is s3 once s3 is set. local is refused: its files would live on one pod's disk.
     */
    provider?: string;
    /**
     * The s3 provider (the extensions/s3-storage extension) on an S3-compatible object store. Create the bucket with npm run storage:setup.
     */
    s3?: {
      /**
       * S3_ENDPOINT: the S3 API, e.g. https://s3.eu-west-1.amazonaws.com or an S3-compatible server.
       */
      endpoint: string;
      /**
       * S3_BUCKET: the bucket; addressed path-style, <endpoint>/<bucket>/<key>.
       */
      bucket: string;
      /**
       * S3_PUBLIC_URL: the base of public URLs, <publicUrl>/<bucket>/<key> (a CDN in front of the bucket); the endpoint when unset.
       */
      publicUrl?: string;
    };
  };
  /**
   * Extension packages to install, pinned by version. Not acted on yet: the operator does not install them; the platform loads the extensions present in the image.
   *
   * @maxItems 100
   *
   * Items: One extension.
   */
  extensions?: {
    /**
     * Extension id.
     */
    name: string;
    /**
     * Exact version.
     */
    version: string;
  }[];
  /**
   * Grafana dashboards, Prometheus alert rules and the PodMonitors that scrape the Shop, provisioned by the operator in the Shop's namespace and owned by the Shop. Each is off by default; turning one off again deletes what it provisioned. The condition MonitoringProvisioned reports the outcome.
   */
  monitoring?: {
    /**
     * The six Grafana dashboards of dashboards/json, one ConfigMap each (<shop>-dashboard-<uid>), labelled grafana_dashboard: "1" for the Grafana sidecar. Each is this Shop's copy: its own uid and title, opened on this Shop's namespace and name.
     */
    dashboards?: {
      /**
       * Provision the dashboards. They need no CRD, so they are provisioned even where the Prometheus Operator is not installed.
       */
      enabled?: boolean;
      /**
       * More labels on the dashboard ConfigMaps, besides grafana_dashboard: "1", e.g. the one your sidecar's label selector asks for.
       */
      labels?: {
        [k: string]: string;
      };
      /**
       * The Grafana folder, as the ConfigMaps' grafana_folder annotation (the sidecar's folderAnnotation).
       */
      folder?: string;
    };
    /**
     * The alert rules of alerts/shop.rules.yaml as a PrometheusRule <shop>-alerts (monitoring.coreos.com/v1), every expression scoped to this Shop's namespace and shop labels. The two rules on the shared Temporal server (WorkflowTaskQueueBacklog, WorkflowsStuck) belong to no Shop and are left out.
     */
    alerts?: {
      /**
       * Provision the PrometheusRule. Needs the Prometheus Operator's CRDs; without them MonitoringProvisioned is False with reason CRDNotInstalled.
       */
      enabled?: boolean;
      /**
       * Names of alerts to leave out.
       */
      exclude?: string[];
      /**
       * Labels on the PrometheusRule, e.g. the one your Prometheus's ruleSelector asks for.
       */
      labels?: {
        [k: string]: string;
      };
    };
    /**
     * A PodMonitor <shop> (monitoring.coreos.com/v1) that scrapes /metrics of the api, worker and consumer pods and adds the shop label the dashboards and alerts select on (the namespace label is the Prometheus Operator's).
     */
    podMonitors?: {
      /**
       * Provision the PodMonitor. Needs the Prometheus Operator's CRDs; without them MonitoringProvisioned is False with reason CRDNotInstalled.
       */
      enabled?: boolean;
      /**
       * Labels on the PodMonitor, e.g. the one your Prometheus's podMonitorSelector asks for.
       */
      labels?: {
        [k: string]: string;
      };
    };
  };
  /**
   * NetworkPolicies (networking.k8s.io/v1) owned by the Shop that restrict what may connect to its pods: the api accepts connections on its http port only, the worker and the consumer on their metrics port (the server of /metrics and the probes) only, and every other pod of the Shop (the Jobs) nothing. Egress is not restricted: the database, cache, broker, workflow engine, search and storage are outside what the Shop knows of the cluster. Off by default; turning it off again deletes them. Enforced only by a network plugin that implements NetworkPolicy.
   */
  networkPolicy?: {
    /**
     * Render the NetworkPolicies: <shop>-api, <shop>-worker, <shop>-consumer, and <shop>-default-deny for every other pod of the Shop.
     */
    enabled?: boolean;
    /**
     * Where the api's http port accepts connections from (an ingress controller's namespace, the storefronts' pods), any one of these peers. Unset or empty: from anywhere, outside the cluster too.
     */
    apiFrom?: {
      /**
       * Namespaces by their labels ({} for every namespace), e.g. matchLabels: {kubernetes.io/metadata.name: monitoring}. With podSelector: those pods in those namespaces.
       */
      namespaceSelector?: {
        /**
         * Labels the selected objects carry, all of them.
         */
        matchLabels?: {
          [k: string]: string;
        };
        /**
         * Label requirements, all of them (as in any Kubernetes label selector).
         */
        matchExpressions?: {
          key: string;
          operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
          values?: string[];
        }[];
      };
      /**
       * Pods by their labels; alone, pods in the Shop's namespace.
       */
      podSelector?: {
        /**
         * Labels the selected objects carry, all of them.
         */
        matchLabels?: {
          [k: string]: string;
        };
        /**
         * Label requirements, all of them (as in any Kubernetes label selector).
         */
        matchExpressions?: {
          key: string;
          operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
          values?: string[];
        }[];
      };
    }[];
    /**
     * Where the worker's and the consumer's metrics ports accept connections from, any one of these peers, e.g. [{namespaceSelector: {matchLabels: {kubernetes.io/metadata.name: monitoring}}}] for a Prometheus in namespace monitoring. Unset or empty: from no pod (the kubelet's probes, from the node, are let through by most network plugins).
     */
    metricsFrom?: {
      /**
       * Namespaces by their labels ({} for every namespace), e.g. matchLabels: {kubernetes.io/metadata.name: monitoring}. With podSelector: those pods in those namespaces.
       */
      namespaceSelector?: {
        /**
         * Labels the selected objects carry, all of them.
         */
        matchLabels?: {
          [k: string]: string;
        };
        /**
         * Label requirements, all of them (as in any Kubernetes label selector).
         */
        matchExpressions?: {
          key: string;
          operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
          values?: string[];
        }[];
      };
      /**
       * Pods by their labels; alone, pods in the Shop's namespace.
       */
      podSelector?: {
        /**
         * Labels the selected objects carry, all of them.
         */
        matchLabels?: {
          [k: string]: string;
        };
        /**
         * Label requirements, all of them (as in any Kubernetes label selector).
         */
        matchExpressions?: {
          key: string;
          operator: "In" | "NotIn" | "Exists" | "DoesNotExist";
          values?: string[];
        }[];
      };
    }[];
  };
  /**
   * Rotation of the keys the operator generates (SECRETS_MASTER_KEY and SECRET_KEY when unset in secrets): a new key every interval; an old master key is removed once the retention has passed and the rewrap Job moved every stored secret off it. Keys given in secrets are never rotated. See docs/secrets.md.
   */
  keyRotation?: {
    /**
     * Rotate the generated keys every interval. The annotation shop.dev/rotate-keys requests one rotation now even when false.
     */
    enabled?: boolean;
    /**
     * How long a generated key stays current, as a positive whole number of hours, minutes or seconds, e.g. 720h.
     */
    interval?: string;
    /**
     * How long an old key stays readable after it stopped being current (from the end of the rollout that made the new key current), as a positive whole number of hours, minutes or seconds, e.g. 336h (14 days); at least 15m, the access-token lifetime, so that tokens the previous signing key signed verify until they expire. A master key is removed only after this, and only once a rewrap left no rows under it.
     */
    retention?: string;
    /**
     * Lets a live Shop switch secrets.secretsMasterKey between generated and supplied, which the API server otherwise refuses. The new keys must include the old one (secretsMasterKeyRotatingFrom), or every stored secret becomes unreadable.
     */
    allowKeySourceSwitch?: boolean;
  };
  /**
   * The first install's seed: once the migrations of the first version are applied, a Job runs `npm run db:seed -- --admin-only` once, creating the first admin staff user (none is created when one with that email exists); status.seededAt records it, and it never runs again.
   */
  seed?: {
    /**
     * A Secret in the Shop's namespace with the admin's `email` and `password` (10 to 200 characters), and optionally `name`.
     */
    adminSecretName: string;
  };
  /**
   * True: the operator changes nothing of this Shop (no object applied, deleted or pruned, no Job started) and reports phase Paused, until it is false again.
   */
  paused?: boolean;
}
/**
 * What the operator observed and did.
 */
export interface ShopStatus {
  /**
   * The spec generation this status describes; Ready is never True for a newer one.
   */
  observedGeneration?: number;
  /**
   * Summary: Pending, Migrating, Deploying, Ready, Upgrading, Degraded, Failed or Paused.
   */
  phase?: "Pending" | "Migrating" | "Deploying" | "Ready" | "Upgrading" | "Degraded" | "Failed" | "Paused";
  /**
   * The image tag whose migrations are applied.
   */
  migratedVersion?: string;
  /**
   * The image digest the migration Job of migratedVersion ran, from its pod (sha256:…); unset when its pod was gone before the operator read it.
   */
  migratedDigest?: string;
  /**
   * When the seed Job of spec.seed completed; it is not run again.
   */
  seededAt?: string;
  /**
   * A hash of the objects the operator rendered for this Shop when it last reconciled it. When an upgraded operator renders the same spec differently, Shops whose hash differs roll a few at a time (ROLLOUT_BATCH_SIZE per ROLLOUT_INTERVAL_SECONDS, docs/operator.md).
   */
  renderHash?: string;
  /**
   * Why the Shop is in this phase, for people.
   */
  message?: string;
  /**
   * Standard conditions.
   *
   * Items: A standard condition.
   */
  conditions?: {
    /**
     * Ready, Degraded, MigrationsApplied, ApiAvailable, WorkerAvailable, ConsumerAvailable, MonitoringProvisioned or KeysCurrent.
     */
    type: string;
    /**
     * True, False or Unknown.
     */
    status: "True" | "False" | "Unknown";
    /**
     * The generation this condition was set for.
     */
    observedGeneration?: number;
    /**
     * When the status last changed.
     */
    lastTransitionTime: string;
    /**
     * A CamelCase reason, for machines.
     */
    reason: string;
    /**
     * What happened, for people.
     */
    message: string;
  }[];
  /**
   * Where the rotation of the generated keys is (see docs/secrets.md), and the rows per master key id the last rewrap Job counted. Unset when both keys come from spec.secrets, until a rewrap Job for secretsMasterKeyRotatingFrom has counted rows.
   */
  keyRotation?: {
    /**
     * Settled, Adding, Switching or Rewrapping; unset when both keys come from spec.secrets.
     */
    phase?: "Settled" | "Adding" | "Switching" | "Rewrapping";
    /**
     * The key id of the generated SECRETS_MASTER_KEY, as npm run secrets:status prints it; unset when the master key is supplied.
     */
    currentKeyId?: string;
    /**
     * When the next scheduled rotation starts; unset while keyRotation.enabled is false.
     */
    nextRotationAt?: string;
    /**
     * Earlier master keys still in SECRETS_MASTER_KEY_ROTATING_FROM.
     */
    retiringKeys?: {
      /**
       * The key id.
       */
      keyId: string;
      /**
       * When its retention ends, counted from the end of the rollout that made another key current (unset until then). It is removed after this, once no pod of an older keys revision is left (Terminating ones included) and a rewrap run again then (the removal check Job) counted no row under it.
       */
      removeAfter?: string;
    }[];
    /**
     * Rows of stored secrets per master key id when the last rewrap Job ended (of the generated keys' rotation, or of secretsMasterKeyRotatingFrom), from its pod's termination message; unset when its pod did not say (e.g. it was gone before the operator read it). Once read, it stays when the pod is gone.
     */
    rowsPerKeyId?: {
      [k: string]: number;
    };
    /**
     * When that rewrap Job counted rowsPerKeyId.
     */
    rowsCountedAt?: string;
  };
}
