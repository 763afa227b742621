// Starts Swagger UI on the service's own OpenAPI document. A file of its own, so the page's
// Content-Security-Policy needs no inline script.
window.ui = SwaggerUIBundle({ url: '/swagger/json', dom_id: '#swagger-ui', deepLinking: true });
