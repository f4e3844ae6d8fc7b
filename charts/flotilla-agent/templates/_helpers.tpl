{{/* The name of the agent's objects (one agent per member cluster). */}}
{{- define "flotilla-agent.name" -}}
{{- .Chart.Name -}}
{{- end -}}

{{/* The Secret where the agent keeps its key and certificate after registration (fixed name). */}}
{{- define "flotilla-agent.credentialsSecret" -}}
flotilla-agent-credentials
{{- end -}}

{{/* Labels on every object. */}}
{{- define "flotilla-agent.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: flotilla
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{ include "flotilla-agent.selectorLabels" . }}
{{- end -}}

{{/* Labels that select the agent's pod. */}}
{{- define "flotilla-agent.selectorLabels" -}}
app.kubernetes.io/name: {{ include "flotilla-agent.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The container image: repository:tag, the tag defaulting to the chart's appVersion. */}}
{{- define "flotilla-agent.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{/*
Checks the values every template depends on; renders nothing. Fails with a message naming the
value: required ones, exactly one credential, and rbac.rules only with rbac.clusterAdmin false.
*/}}
{{- define "flotilla-agent.validate" -}}
{{- $_ := required "cluster.name is required: this member's name in the fleet" .Values.cluster.name -}}
{{- $_ := required "controlPlane.address is required: host:port of the control plane's gRPC hub" .Values.controlPlane.address -}}
{{- $_ := required "caCert is required: PEM of the control plane's CA" .Values.caCert -}}
{{- if and .Values.bootstrapToken .Values.existingCertSecret -}}
{{- fail "set only one of bootstrapToken and existingCertSecret, not both" -}}
{{- end -}}
{{- if not (or .Values.bootstrapToken .Values.existingCertSecret) -}}
{{- fail "one of bootstrapToken or existingCertSecret is required: a token to register with, or the name of a kubernetes.io/tls Secret with the agent's certificate" -}}
{{- end -}}
{{- if and .Values.rbac.clusterAdmin .Values.rbac.rules -}}
{{- fail "rbac.rules applies only with rbac.clusterAdmin: false (cluster-admin already allows everything)" -}}
{{- end -}}
{{- if and (not .Values.rbac.clusterAdmin) (not .Values.rbac.rules) -}}
{{- fail "rbac.rules is required when rbac.clusterAdmin is false: the PolicyRules for the kinds the agent applies" -}}
{{- end -}}
{{- end -}}

{{/* host:port of registration: controlPlane.registrationAddress, else the hub's host with port 9444. */}}
{{- define "flotilla-agent.registrationAddress" -}}
{{- if .Values.controlPlane.registrationAddress -}}
{{- .Values.controlPlane.registrationAddress -}}
{{- else -}}
{{- printf "%s:9444" (regexReplaceAll ":[0-9]+$" .Values.controlPlane.address "") -}}
{{- end -}}
{{- end -}}
