{{/* The name of every object the chart creates (one control plane per control cluster). */}}
{{- define "flotilla-control-plane.name" -}}
{{- .Chart.Name -}}
{{- end -}}

{{/* Labels on every object. */}}
{{- define "flotilla-control-plane.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: flotilla
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
{{ include "flotilla-control-plane.selectorLabels" . }}
{{- end -}}

{{/* Labels that select the control plane's pods. */}}
{{- define "flotilla-control-plane.selectorLabels" -}}
app.kubernetes.io/name: {{ include "flotilla-control-plane.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end -}}

{{/* The container image: repository:tag, the tag defaulting to the chart's appVersion. */}}
{{- define "flotilla-control-plane.image" -}}
{{- printf "%s:%s" .Values.image.repository (.Values.image.tag | default .Chart.AppVersion) -}}
{{- end -}}

{{/* The Secret holding ca.crt, ca.key, tls.crt, tls.key: tls.existingSecret, else the chart's own. */}}
{{- define "flotilla-control-plane.tlsSecretName" -}}
{{- if .Values.tls.existingSecret -}}
{{- .Values.tls.existingSecret -}}
{{- else -}}
{{- printf "%s-tls" (include "flotilla-control-plane.name" .) -}}
{{- end -}}
{{- end -}}

{{/* Checks the TLS values; renders nothing. tls.existingSecret and the inline PEMs exclude each other. */}}
{{- define "flotilla-control-plane.validate" -}}
{{- if and .Values.tls.existingSecret (or .Values.tls.caCert .Values.tls.caKey .Values.tls.cert .Values.tls.key) -}}
{{- fail "set either tls.existingSecret or tls.caCert/tls.caKey/tls.cert/tls.key, not both" -}}
{{- end -}}
{{- end -}}
