//! What an OpenTelemetry collector received from the OTLP exporter, decoded with the protocol's
//! own message types (`opentelemetry-proto`): the spans, the service names, one attribute.

use opentelemetry_proto::tonic::collector::trace::v1::ExportTraceServiceRequest;
use opentelemetry_proto::tonic::common::v1::any_value::Value as Any;
pub use opentelemetry_proto::tonic::trace::v1::Span;
use prost::Message as _;

/// The spans in the export bodies a collector received, in order, and the `service.name` of
/// each resource they came from.
pub fn received(bodies: &[Vec<u8>]) -> (Vec<Span>, Vec<String>) {
    let mut spans = Vec::new();
    let mut services = Vec::new();
    for body in bodies {
        let export = ExportTraceServiceRequest::decode(body.as_slice()).expect("OTLP protobuf");
        for resource in export.resource_spans {
            let service = resource
                .resource
                .iter()
                .flat_map(|r| &r.attributes)
                .find(|a| a.key == "service.name")
                .and_then(|a| text(a.value.as_ref()?.value.as_ref()?));
            services.extend(service);
            for scope in resource.scope_spans {
                spans.extend(scope.spans);
            }
        }
    }
    (spans, services)
}

/// The value of the attribute `key` of `span`, as text.
pub fn attribute(span: &Span, key: &str) -> Option<String> {
    let value = span
        .attributes
        .iter()
        .find(|a| a.key == key)?
        .value
        .as_ref()?;
    text(value.value.as_ref()?)
}

fn text(value: &Any) -> Option<String> {
    Some(match value {
        Any::StringValue(text) => text.clone(),
        Any::IntValue(n) => n.to_string(),
        Any::BoolValue(b) => b.to_string(),
        Any::DoubleValue(x) => x.to_string(),
        other => format!("{other:?}"),
    })
}
