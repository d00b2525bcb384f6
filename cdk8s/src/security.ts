import type { k8s } from 'cdk8s-plus-33';

/** The image's unprivileged user; any non-zero uid works, this one matches no system account. */
export const RUN_AS_USER = 10001;

/** Meets the "restricted" Pod Security Standard. */
export const POD_SECURITY_CONTEXT: k8s.PodSecurityContext = {
  runAsNonRoot: true,
  runAsUser: RUN_AS_USER,
  runAsGroup: RUN_AS_USER,
  fsGroup: RUN_AS_USER,
  seccompProfile: { type: 'RuntimeDefault' },
};

export const CONTAINER_SECURITY_CONTEXT: k8s.SecurityContext = {
  runAsNonRoot: true,
  runAsUser: RUN_AS_USER,
  runAsGroup: RUN_AS_USER,
  readOnlyRootFilesystem: true,
  allowPrivilegeEscalation: false,
  privileged: false,
  capabilities: { drop: ['ALL'] },
  seccompProfile: { type: 'RuntimeDefault' },
};
