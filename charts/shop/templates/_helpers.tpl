{{/* The Shop's name: values.name or the release name; it must be a DNS label the operator can prefix. */}}
{{- define "shop.name" -}}
{{- $name := .Values.name | default .Release.Name }}
{{- if not (regexMatch "^[a-z0-9]([-a-z0-9]{0,52}[a-z0-9])?$" $name) }}
{{- fail (printf "the Shop's name %q must be a DNS label of at most 54 characters: set name" $name) }}
{{- end }}
{{- $name }}
{{- end }}
