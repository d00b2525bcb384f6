{{/* The chart's name, or nameOverride. */}}
{{- define "shop-operator.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/* The name of every object: fullnameOverride, the release name when it contains the chart's name, or <release>-<chart>. */}}
{{- define "shop-operator.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := include "shop-operator.name" . }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{/* What selects the operator's pods; never changes for a release. */}}
{{- define "shop-operator.selectorLabels" -}}
app.kubernetes.io/name: {{ include "shop-operator.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "shop-operator.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{ include "shop-operator.selectorLabels" . }}
app.kubernetes.io/version: {{ .Values.image.tag | default .Chart.AppVersion | trunc 63 | trimSuffix "-" | quote }}
app.kubernetes.io/component: operator
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "shop-operator.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "shop-operator.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- required "serviceAccount.name is required when serviceAccount.create is false" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "shop-operator.leaseName" -}}
{{- default (include "shop-operator.fullname" .) .Values.leaderElection.leaseName }}
{{- end }}

{{/* What values.schema.json cannot express; the operator would refuse it at start (exit 78). */}}
{{- define "shop-operator.validate" -}}
{{- if ge (int .Values.leaderElection.renewDeadlineSeconds) (int .Values.leaderElection.leaseDurationSeconds) }}
{{- fail "leaderElection.renewDeadlineSeconds must be less than leaderElection.leaseDurationSeconds" }}
{{- end }}
{{- end }}

{{/* runbookBaseUrl with its trailing /, or the placeholder alerts/src/generate-rules.ts links runbooks under (RUNBOOK_BASE_URL there). */}}
{{- define "shop-operator.runbookBase" -}}
{{- with .Values.runbookBaseUrl }}{{ trimSuffix "/" . }}/{{ else }}https://shop-platform.invalid/{{ end }}
{{- end }}

{{/* Secrets: read by name (those spec.secrets names, and the generated keys) and watched by their
metadata only (a changed referenced Secret rolls the pods), never deleted; the generated keys Secret is
created once and updated only by key rotation. */}}
{{- define "shop-operator.secretRules" -}}
- apiGroups: [""]
  resources: [secrets]
  verbs: [get, list, watch, create, update]
{{- end }}
