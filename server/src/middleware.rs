//! The middlewares that read the server's state ([`ServerState`], the
//! application's data), outermost first as [`crate::bind`] wraps them:
//! [`track`] counts the requests in flight (for a graceful stop),
//! [`count`] the metrics, and [`throttle`] applies the per-client rate
//! limits. The parts they use (`shutdown.rs`, `metrics.rs`, `limits.rs`)
//! know nothing of the state. A request that reaches them without the
//! state (a test's bare app) passes through untouched.

use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Instant;

use actix_web::Error;
use actix_web::body::{BodySize, BoxBody, MessageBody};
use actix_web::dev::{ServiceRequest, ServiceResponse};
use actix_web::middleware::Next;
use actix_web::web::{Bytes, Data};

use crate::error::{ApiError, Form, answer};
use crate::limits::{CLIENT, Class, client_ip};
use crate::metrics;
use crate::shutdown::Guard;
use crate::state::ServerState;
use crate::tokens;

/// An answer's body that holds its request's [`Guard`] until the body is
/// dropped (sent whole, or its connection gone).
struct Tracked {
    body: BoxBody,
    _guard: Guard,
}

impl MessageBody for Tracked {
    type Error = Box<dyn std::error::Error>;

    fn size(&self) -> BodySize {
        self.body.size()
    }

    fn poll_next(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, Self::Error>>> {
        Pin::new(&mut self.get_mut().body).poll_next(cx)
    }
}

/// Middleware (outermost): counts the request in [`ServerState`]'s
/// [`InFlight`](crate::shutdown::InFlight) until its answer's body is done.
pub(crate) async fn track(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let Some(state) = req.app_data::<Data<ServerState>>().cloned() else {
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    let guard = state.in_flight.enter();
    let res = next.call(req).await?;
    Ok(res.map_body(|_, body| {
        BoxBody::new(Tracked {
            body: body.boxed(),
            _guard: guard,
        })
    }))
}

/// Middleware: keeps `/metrics` on its listener
/// ([`metrics::on_its_listener`]), then counts every answer
/// ([`Metrics::observe_answer`](crate::metrics::Metrics::observe_answer)).
///
/// # Errors
/// None of its own: the inner service's errors pass through.
pub async fn count(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<BoxBody>, Error> {
    let start = Instant::now();
    let state = req.app_data::<Data<ServerState>>().cloned();
    let Some(state) = state else {
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    let res = if metrics::on_its_listener(&req, state.metrics_addr) {
        next.call(req).await?.map_into_boxed_body()
    } else {
        let e = ApiError::NotFound(format!("no route for {} {}", req.method(), req.path()));
        let response = answer(&e, Form::of(req.headers(), Form::Json));
        req.into_response(response)
    };
    state.metrics.observe_answer(&res, start.elapsed());
    Ok(res)
}

/// Middleware: draws every request from its class's quota for its
/// client, answering 429 with `Retry-After` past it, and runs the handler
/// with its client in the task-local `CLIENT` (for the
/// [`WorkMeter`](crate::limits::WorkMeter)).
///
/// # Errors
/// None of its own: a refusal is an answer (429), and the inner service's
/// errors pass through.
pub async fn throttle(
    req: ServiceRequest,
    next: Next<impl MessageBody + 'static>,
) -> Result<ServiceResponse<actix_web::body::BoxBody>, actix_web::Error> {
    let Some(state) = req.app_data::<Data<ServerState>>().cloned() else {
        return Ok(next.call(req).await?.map_into_boxed_body());
    };
    let client = client_ip(req.request(), state.limits.trust_proxy());
    let class = Class::of(req.method(), req.path());
    // The operator's uploads (bulk imports) draw on no quota.
    let operator = class == Some(Class::Uploads)
        && tokens::bearer(req.request()).is_some_and(|t| state.tokens.is_operator(t));
    if let Some(class) = class.filter(|_| !operator)
        && let Err(e) = state.limits.check(class, client)
    {
        let (req, _) = req.into_parts();
        let response = actix_web::ResponseError::error_response(&e);
        return Ok(ServiceResponse::new(req, response));
    }
    let res = CLIENT.scope(client, next.call(req)).await?;
    Ok(res.map_into_boxed_body())
}
