/*
 * A partner integration in Java against the partnership sandbox, with the JDK's HttpClient
 * (java.net.http) and Debian's Jackson 2 (libjackson2-databind-java). One source file, run
 * by the JDK's source launcher, no build step; google-oauth-client (libgoogle-oauth-client-java)
 * shows its 401 trap:
 *
 *   java -Djdk.httpclient.redirects.retrylimit=1 -cp "$(cat examples/java/classpath)" examples/java/Partner.java
 *
 * (-Djdk.httpclient.redirects.retrylimit=1 stops the JDK's own resend of a GET whose connection
 * failed, so the reset drills reach this code; see the reset drill below.)
 *
 * SANDBOX_URL (default http://127.0.0.1:4010); SANDBOX_ADMIN_TOKEN: the control-plane token,
 * when the sandbox has one. SANDBOX_WAIT=clock: waits between propagation retries move the
 * sandbox clock instead of sleeping (a test run); the default sleeps for real.
 *
 * The tour (token, mappings, register, the propagation retry of spec 5.5, the rule-5 recipe
 * with its 409 retry, a dry run, status), the partial failure, typed envelopes with Jackson,
 * the Basic-auth traps (RFC 6749 2.3.1, the JDK Authenticator), what a reset looks like (and
 * the JDK's own resend), and a chaos run that converges. Each step prints one line; the first
 * failure prints "FAIL: ..." and exits 1.
 */

import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.google.api.client.http.BasicAuthentication;
import com.google.api.client.auth.oauth2.ClientCredentialsTokenRequest;
import com.google.api.client.auth.oauth2.ClientParametersAuthentication;
import com.google.api.client.auth.oauth2.TokenResponseException;
import com.google.api.client.http.GenericUrl;
import com.google.api.client.http.HttpExecuteInterceptor;
import com.google.api.client.http.HttpTransport;
import com.google.api.client.http.apache.ApacheHttpTransport;
import com.google.api.client.http.javanet.NetHttpTransport;
import com.google.api.client.json.gson.GsonFactory;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import java.io.IOException;
import java.net.Authenticator;
import java.net.PasswordAuthentication;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.UUID;
import java.util.function.IntConsumer;
import java.util.stream.Collectors;

public class Partner {
  static final int PROPAGATION_RETRY_EVERY = 20; // spec 5.5: every 15 to 30 seconds
  static final int PROPAGATION_GIVE_UP = 120; // spec 5.5: for up to two minutes
  /** A secret with characters RFC 6749 section 2.3.1 form-encodes before HTTP Basic. */
  static final String PARTNER_SECRET = "java+secret/42";

  static final ObjectMapper JSON = new ObjectMapper();

  // --- typed envelopes: the spec's fields; unknown ones ignored; error.code read ----------

  /** error: the spec leaves its shape open; the sandbox (and the service) send code and details. */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record ApiError(String code, JsonNode details) {}

  /**
   * The envelope of spec section 1. ignoreUnknown: a field the service adds (the envelope's
   * dry_run on a dry run, for a record that does not name it) must not fail the decoding,
   * which Jackson's default FAIL_ON_UNKNOWN_PROPERTIES does.
   */
  @JsonIgnoreProperties(ignoreUnknown = true)
  record Envelope(
      int status,
      ApiError error,
      String message,
      @JsonProperty("request_id") String requestId,
      JsonNode data,
      @JsonProperty("dry_run") Boolean dryRun) {
    String code() {
      return error == null ? null : error.code();
    }
  }

  /** The same envelope as a team might first write it: no dry_run, Jackson's defaults. */
  record NaiveEnvelope(
      int status,
      ApiError error,
      String message,
      @JsonProperty("request_id") String requestId,
      JsonNode data) {}

  static Envelope envelope(HttpResponse<String> res) throws IOException {
    Envelope env = JSON.readValue(res.body(), Envelope.class);
    if (env.status() != res.statusCode())
      throw new IllegalStateException("envelope status " + env.status() + " on HTTP " + res.statusCode());
    return env;
  }

  // --- the control plane: plain HTTP ---------------------------------------------------------

  static final class ControlPlane {
    final HttpClient http = HttpClient.newHttpClient();
    final String base;
    final String adminToken;

    ControlPlane(String base, String adminToken) {
      this.base = base;
      this.adminToken = adminToken;
    }

    JsonNode call(String method, String path, Object body, boolean ok404) throws Exception {
      HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(base + path))
          .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
              : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)))
          .header("Content-Type", "application/json");
      if (adminToken != null) req.header("Authorization", "Bearer " + adminToken);
      HttpResponse<String> res = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
      if (ok404 && res.statusCode() == 404) return null;
      if (res.statusCode() >= 300)
        throw new IllegalStateException(method + " " + path + ": " + res.statusCode() + " " + res.body());
      return res.body().isEmpty() ? JSON.createObjectNode() : JSON.readTree(res.body());
    }

    JsonNode call(String method, String path, Object body) throws Exception {
      return call(method, path, body, false);
    }

    void seedTaxonomy(String parent) throws Exception {
      Object[][] rows = {
        {10, "Apparel & Accessories", 1001, "Women's Clothing", "Apparel > Womenswear"},
        {10, "Apparel & Accessories", 1002, "Men's Clothing", "Apparel > Menswear"},
        {20, "Health & Beauty", 2001, "Skincare", "Beauty > Skincare"},
        {20, "Health & Beauty", 2002, "Vitamins & Supplements", "Health > Dietary Supplements"},
        {40, "Games & Gambling", 4002, "Online Casino", "Gambling > Casino"},
        {40, "Games & Gambling", 4003, "Sports Betting", "Gambling > Sports Betting"},
      };
      String[] keys = {"partner_vertical_id", "partner_vertical_name", "partner_sub_vertical_id",
          "partner_sub_vertical_name", "vertical_name"};
      List<Map<String, Object>> mappings = new ArrayList<>();
      for (Object[] row : rows) {
        Map<String, Object> m = new LinkedHashMap<>();
        for (int i = 0; i < keys.length; i++) m.put(keys[i], row[i]);
        mappings.add(m);
      }
      call("PUT", "/__sandbox/partners/" + parent + "/vertical-mappings", Map.of("vertical_mappings", mappings));
    }

    void arm(String accountId, String scenario) throws Exception {
      call("PUT", "/__sandbox/scenarios", Map.of("scenario", scenario, "account_id", accountId, "times", 1));
    }

    /** This partner's clock (docs/parallel-tests.md); the global one where that is absent. */
    void advanceClock(String parent, int seconds) throws Exception {
      if (call("POST", "/__sandbox/partners/" + parent + "/clock/advance", Map.of("seconds", seconds), true) == null)
        call("POST", "/__sandbox/clock/advance", Map.of("seconds", seconds));
    }
  }

  // --- tokens --------------------------------------------------------------------------------

  static String form(Map<String, String> fields) {
    return fields.entrySet().stream()
        .map(e -> URLEncoder.encode(e.getKey(), StandardCharsets.UTF_8) + "=" + URLEncoder.encode(e.getValue(), StandardCharsets.UTF_8))
        .collect(Collectors.joining("&"));
  }

  static HttpRequest.Builder tokenRequest(String base, Map<String, String> fields) {
    return HttpRequest.newBuilder(URI.create(base + "/oauth/token"))
        .header("Content-Type", "application/x-www-form-urlencoded")
        .POST(HttpRequest.BodyPublishers.ofString(form(fields)));
  }

  /** "200", or the RFC 6749 error and its description. */
  static String tokenOutcome(HttpClient http, HttpRequest req) throws Exception {
    HttpResponse<String> res = http.send(req, HttpResponse.BodyHandlers.ofString());
    if (res.statusCode() == 200) return "200";
    JsonNode body = JSON.readTree(res.body());
    return body.path("error").asText() + ": " + body.path("error_description").asText();
  }

  /** HTTP Basic as RFC 6749 2.3.1 says: client_id and client_secret form-encoded first. */
  static String formEncodedBasic(String id, String secret) {
    String pair = URLEncoder.encode(id, StandardCharsets.UTF_8) + ":" + URLEncoder.encode(secret, StandardCharsets.UTF_8);
    return "Basic " + Base64.getEncoder().encodeToString(pair.getBytes(StandardCharsets.UTF_8));
  }

  /** A token from google-oauth-client; on a 401, what TokenResponseException carries. */
  static String googleToken(HttpTransport transport, String base, HttpExecuteInterceptor auth) throws IOException {
    try {
      return new ClientCredentialsTokenRequest(transport, GsonFactory.getDefaultInstance(), new GenericUrl(base + "/oauth/token"))
          .setClientAuthentication(auth).execute().getTokenType();
    } catch (TokenResponseException e) {
      return e.getStatusCode() + ", error " + (e.getDetails() == null ? "null (no body)" : e.getDetails().getError());
    }
  }

  static String rawBasic(String id, String secret) {
    return "Basic " + Base64.getEncoder().encodeToString((id + ":" + secret).getBytes(StandardCharsets.UTF_8));
  }

  // --- the partner's API client --------------------------------------------------------------

  static final class Api {
    final String base;
    final JsonNode partner;
    final String parent;
    final IntConsumer waitSeconds;
    final List<Long> waits = new ArrayList<>();
    /**
     * With the JDK's defaults this client resends a GET or HEAD once when the connection fails
     * before an answer; -Djdk.httpclient.redirects.retrylimit=1 stops that, so every reset
     * reaches call() below.
     */
    final HttpClient shared = HttpClient.newHttpClient();
    String token;
    long expiresIn;

    Api(String base, JsonNode partner, IntConsumer waitSeconds) throws Exception {
      this.base = base;
      this.partner = partner;
      this.parent = partner.get("parent_account_id").asText();
      this.waitSeconds = waitSeconds;
      fetchToken();
    }

    void fetchToken() throws Exception {
      // client_secret_post: no Basic-auth encoding to get wrong, and no Authenticator.
      HttpRequest req = tokenRequest(base, Map.of("grant_type", "client_credentials",
          "client_id", partner.get("client_id").asText(), "client_secret", partner.get("client_secret").asText())).build();
      HttpResponse<String> res = shared.send(req, HttpResponse.BodyHandlers.ofString());
      if (res.statusCode() != 200) throw new IllegalStateException("token: " + res.statusCode() + " " + res.body());
      JsonNode body = JSON.readTree(res.body());
      token = body.get("access_token").asText();
      expiresIn = body.get("expires_in").asLong();
    }

    HttpResponse<String> send(String method, String path, Object body, String key, String scenario, HttpClient via)
        throws Exception {
      HttpRequest.Builder req = HttpRequest.newBuilder(URI.create(base + path))
          .timeout(Duration.ofSeconds(30))
          .header("Authorization", "Bearer " + token)
          .header("X-Platform-Parent-Account-Id", parent)
          .method(method, body == null ? HttpRequest.BodyPublishers.noBody()
              : HttpRequest.BodyPublishers.ofString(JSON.writeValueAsString(body)));
      if (body != null) req.header("Content-Type", "application/json");
      if (key != null) req.header("Idempotency-Key", key);
      if (scenario != null) req.header("X-Sandbox-Scenario", scenario);
      return (via != null ? via : shared).send(req.build(), HttpResponse.BodyHandlers.ofString());
    }

    Envelope call(String method, String path) throws Exception {
      return call(method, path, null, null, null);
    }

    /**
     * One call, retried as the spec and the sandbox's documents advise: 429 after Retry-After,
     * a 5xx or a reset after a short back-off (the same Idempotency-Key: a failed call applied
     * nothing), a new token when it expired, the propagation 401/403 every 20 s. A 409 or any
     * other error is the caller's.
     */
    Envelope call(String method, String path, Object body, String key, String scenario) throws Exception {
      for (int attempt = 0; attempt < 12; attempt++) {
        HttpResponse<String> res;
        try {
          res = send(method, path, body, key, scenario, null);
        } catch (IOException reset) { // "header parser received no bytes", or "Too many retries" (a GET)
          Thread.sleep(200); // a deliberate retry backs off (a library's resend comes within 100 ms)
          continue;
        }
        Envelope env = envelope(res);
        int status = res.statusCode();
        String code = env.code();
        if (status == 429) {
          long seconds = Long.parseLong(res.headers().firstValue("Retry-After").orElse("1"));
          waits.add(seconds);
          Thread.sleep(seconds * 1000);
        } else if (status >= 500) {
          Thread.sleep(200);
        } else if (status == 401 && ("token_expired".equals(code) || "unauthorized".equals(code))) {
          fetchToken();
        } else if ((status == 401 || status == 403) && "auth_propagation_pending".equals(code) && scenario == null) {
          waitSeconds.accept(PROPAGATION_RETRY_EVERY);
        } else {
          return env;
        }
      }
      throw new IllegalStateException(method + " " + path + ": no success after 12 attempts");
    }
  }

  // --- the flow -----------------------------------------------------------------------------

  /**
   * Spec rule 5: GET, rebuild the body from the Block entries (each sub-vertical mapped back to
   * its vertical), add one, keep the domains, pass content_hash back, PUT; on 409 re-read and
   * re-apply with the same key (spec rule 4 allows it after a stale-hash rejection).
   */
  static Object[] addBlockedVertical(Api api, String path, Map<Integer, Integer> parentOf, int sub, boolean drill)
      throws Exception {
    String key = UUID.randomUUID().toString();
    int conflicts = 0;
    for (int attempt = 0; attempt < 4; attempt++) {
      JsonNode current = api.call("GET", path).data();
      List<Map<String, Object>> blocked = new ArrayList<>();
      for (JsonNode v : current.get("translated_verticals")) {
        int id = v.get("vertical_id").asInt();
        if ("Block".equals(v.get("policy").asText()) && id != sub)
          blocked.add(Map.of("partnerVerticalId", parentOf.get(id), "partnerSubVerticalId", id, "policy", "Block", "position1Policy", "Block"));
      }
      blocked.add(Map.of("partnerVerticalId", parentOf.get(sub), "partnerSubVerticalId", sub, "policy", "Block", "position1Policy", "Block"));
      JsonNode list = current.get("marketplace_controls_list");
      List<Map<String, String>> domains = new ArrayList<>();
      for (JsonNode d : list.get("domains")) domains.add(Map.of("domain", d.get("domain").asText(), "policy", d.get("policy").asText()));
      Map<String, Object> body = new HashMap<>();
      body.put("blockedVerticals", blocked);
      body.put("domains", domains);
      body.put("contentHash", list.get("content_hash").asText());
      String scenario = drill && attempt == 0 ? "stale-content-hash" : null; // a concurrent writer wins
      Envelope res = api.call("PUT", path, body, key, scenario);
      if ("content_hash_mismatch".equals(res.code())) {
        conflicts++;
        continue;
      }
      if (res.error() != null) throw new IllegalStateException("controls PUT: " + res.status() + " " + res.message());
      List<Integer> ids = new ArrayList<>();
      for (JsonNode v : res.data().get("translated_verticals"))
        if ("Block".equals(v.get("policy").asText())) ids.add(v.get("vertical_id").asInt());
      ids.sort(null);
      return new Object[] {conflicts, ids};
    }
    throw new IllegalStateException("controls PUT kept conflicting");
  }

  static String uuid() {
    return UUID.randomUUID().toString();
  }

  static void run() throws Exception {
    String base = Objects.requireNonNullElse(System.getenv("SANDBOX_URL"), "http://127.0.0.1:4010").replaceAll("/$", "");
    ControlPlane cp = new ControlPlane(base, System.getenv("SANDBOX_ADMIN_TOKEN"));

    // A tenant of our own: drills, clock moves and the journal stay ours.
    JsonNode partner = cp.call("POST", "/__sandbox/partners", Map.of("client_secret", PARTNER_SECRET));
    String parent = partner.get("parent_account_id").asText();
    String clientId = partner.get("client_id").asText();
    cp.seedTaxonomy(parent);
    System.out.println("partner: " + parent + " created and seeded on the control plane");
    IntConsumer wait = seconds -> {
      try {
        if ("clock".equals(System.getenv("SANDBOX_WAIT"))) cp.advanceClock(parent, seconds);
        else Thread.sleep(seconds * 1000L);
      } catch (Exception e) {
        throw new RuntimeException(e);
      }
    };

    // RFC 6749 2.3.1: Basic credentials are form-encoded before Base64.
    HttpClient plain = HttpClient.newHttpClient();
    Map<String, String> grant = Map.of("grant_type", "client_credentials");
    System.out.println("basic auth, raw Base64 of id:secret, secret \"" + PARTNER_SECRET + "\": "
        + tokenOutcome(plain, tokenRequest(base, grant).header("Authorization", rawBasic(clientId, PARTNER_SECRET)).build()));
    System.out.println("basic auth, form-encoded first: "
        + tokenOutcome(plain, tokenRequest(base, grant).header("Authorization", formEncodedBasic(clientId, PARTNER_SECRET)).build()));
    // google-oauth-client: BasicAuthentication sends the raw pair too. On the JDK transport
    // (NetHttpTransport: HttpURLConnection) a 401 reaches the caller without its body, so the
    // explanation is lost; the Apache transport keeps it.
    System.out.println("google-oauth-client BasicAuthentication, NetHttpTransport: "
        + googleToken(new NetHttpTransport(), base, new BasicAuthentication(clientId, PARTNER_SECRET)));
    System.out.println("google-oauth-client BasicAuthentication, ApacheHttpTransport: "
        + googleToken(new ApacheHttpTransport(), base, new BasicAuthentication(clientId, PARTNER_SECRET)));
    System.out.println("google-oauth-client ClientParametersAuthentication (client_secret_post), NetHttpTransport: "
        + googleToken(new NetHttpTransport(), base, new ClientParametersAuthentication(clientId, PARTNER_SECRET)));
    System.out.println("client_secret_post: " + tokenOutcome(plain, tokenRequest(base,
        Map.of("grant_type", "client_credentials", "client_id", clientId, "client_secret", PARTNER_SECRET)).build()));

    Api api = new Api(base, partner, wait);
    System.out.println("token: Bearer, expires in " + api.expiresIn + " s");

    Map<Integer, Integer> parentOf = new HashMap<>();
    for (JsonNode m : api.call("GET", "/v1/partnership/vertical-mappings").data().get("vertical_mappings"))
      parentOf.put(m.get("partner_sub_vertical_id").asInt(), m.get("partner_vertical_id").asInt());
    System.out.println("mappings: " + parentOf.size() + " sub-verticals");

    Map<String, Object> register = new LinkedHashMap<>();
    register.put("brand", "Java Junction");
    register.put("vertical_id", 10);
    register.put("sub_vertical_id", 1001);
    register.put("country_code", "US");
    register.put("platform_parent_account_id", parent);
    register.put("store_identifier", "https://java.example.com");
    register.put("external_account_id", "java-" + uuid());
    String path = "/v1/accounts/register/partnership";
    Envelope first = api.call("POST", path, register, null, "auth-propagation=60");
    String account = first.data().get("account_id").asText();
    if (!account.equals(api.call("POST", path, register, null, null).data().get("account_id").asText()))
      throw new IllegalStateException("the same external_account_id registered a second account");
    System.out.println("register: " + account + ", " + first.data().get("pages").size()
        + " pages; the same external_account_id again matched it");

    // Spec 5.5: a new account's calls answer 401 or 403 for up to two minutes; Api.call retries
    // them every 20 s. The journal shows what it met.
    String controls = "/v1/partnership/accounts/" + account + "/marketplacecontrolslists";
    api.call("GET", controls);
    JsonNode journal = cp.call("GET", "/__sandbox/requests?parent_account_id=" + parent + "&path="
        + URLEncoder.encode(controls, StandardCharsets.UTF_8), null).get("requests");
    List<Integer> statuses = new ArrayList<>();
    for (JsonNode e : journal) statuses.add(0, e.get("status").asInt());
    int propagating = 0;
    while (statuses.get(propagating) == 401 || statuses.get(propagating) == 403) propagating++;
    if (propagating * PROPAGATION_RETRY_EVERY > PROPAGATION_GIVE_UP)
      throw new IllegalStateException("authentication never propagated to " + account);
    System.out.println("propagation: " + statuses.subList(0, propagating).stream().map(String::valueOf).collect(Collectors.joining(", "))
        + ", then " + statuses.get(propagating) + " (retried every " + PROPAGATION_RETRY_EVERY + " s)");

    Object[] rule5 = addBlockedVertical(api, controls, parentOf, 2002, true);
    System.out.println("rule 5: blocked " + rule5[1] + " after " + rule5[0]
        + " conflict (409 content_hash_mismatch: re-read, re-applied, same Idempotency-Key)");

    String statusPath = "/v1/partnership/accounts/" + account + "/status";
    HttpResponse<String> dryRes = api.send("PUT", statusPath + "?dry_run=true", Map.of("status", "paused"), uuid(), null, null);
    Envelope dry = envelope(dryRes);
    String naive;
    try {
      JSON.readValue(dryRes.body(), NaiveEnvelope.class);
      naive = "decoded";
    } catch (UnrecognizedPropertyException e) {
      naive = "UnrecognizedPropertyException on \"" + e.getPropertyName() + "\"";
    }
    System.out.println("typed envelope: a dry run's answer with Jackson's defaults: " + naive
        + "; with @JsonIgnoreProperties(ignoreUnknown = true): dry_run " + dry.dryRun());
    Envelope now = api.call("GET", statusPath);
    Envelope paused = api.call("PUT", statusPath, Map.of("status", "paused"), uuid(), null);
    System.out.println("status: dry run showed " + dry.data().get("status").asText() + " while the account stayed "
        + now.data().get("status").asText() + "; then " + paused.data().get("status").asText() + " ("
        + paused.data().get("variants").size() + " variants)");

    // Partial failure (spec section 3): keep request_id, re-check, retry with a fresh key (the
    // same key would only replay the partial failure).
    Envelope partial = api.call("PUT", statusPath, Map.of("status", "active"), uuid(), "status-partial-failure=1");
    if (!"partial_failure".equals(partial.code())) throw new IllegalStateException("partial failure: " + partial.code());
    Envelope recheck = api.call("GET", statusPath);
    Envelope fixed = api.call("PUT", statusPath, Map.of("status", "active"), uuid(), null);
    System.out.println("partial failure: 200 " + partial.code() + ", status " + partial.data().get("status").asText()
        + ", kept request_id " + partial.requestId() + "; re-checked " + recheck.data().get("status").asText()
        + ", retried with a fresh key: " + fixed.data().get("status").asText());

    // What a reset looks like. This JVM runs with -Djdk.httpclient.redirects.retrylimit=1, which
    // stops the JDK's own resend of a GET: every reset reaches this code as an IOException.
    cp.arm(account, "connection-reset");
    try {
      api.send("PUT", statusPath, Map.of("status", "active"), uuid(), null, null);
      throw new IllegalStateException("connection-reset: the PUT got an answer");
    } catch (IOException e) {
      System.out.println("connection-reset, PUT: IOException: " + e.getMessage());
    }
    cp.arm(account, "connection-reset");
    try {
      api.send("GET", statusPath, null, null, null, null);
      throw new IllegalStateException("connection-reset: the GET got an answer (run with -Djdk.httpclient.redirects.retrylimit=1)");
    } catch (IOException e) {
      System.out.println("connection-reset, GET with jdk.httpclient.redirects.retrylimit=1: IOException: " + e.getMessage());
    }
    // A JVM with the JDK's defaults (it reads the limit once) resends the GET itself, on a new
    // connection too: its caller sees a 200, and the sandbox says so. And its Authenticator
    // answers the token endpoint's "WWW-Authenticate: Basic" with the raw pair, gets the 401
    // again, and asks again until the JDK gives up (jdk.httpclient.auth.retrylimit, 3); with
    // redirects.retrylimit=1 it could not even answer the first challenge.
    cp.arm(account, "connection-reset");
    String java = ProcessHandle.current().info().command().orElse("java");
    Process child = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
        Objects.requireNonNullElse(System.getenv("PARTNER_JAVA_SOURCE"), "examples/java/Partner.java"),
        "--jdk-defaults", base, statusPath, api.token, parent, clientId)
        .redirectError(ProcessBuilder.Redirect.DISCARD).start();
    List<String> lines = new String(child.getInputStream().readAllBytes(), StandardCharsets.UTF_8).lines().toList();
    if (child.waitFor() != 0 || lines.size() != 2 || !lines.get(0).startsWith("200 ") || !lines.get(0).contains("retrylimit=1"))
      throw new IllegalStateException("a JVM with the JDK's defaults: " + lines);
    System.out.println("connection-reset, GET with the JDK's defaults: the JDK resent it, the caller saw 200 and X-Sandbox-Warning names jdk.httpclient.redirects.retrylimit=1");
    System.out.println("basic auth, JDK Authenticator (the JDK's defaults): " + lines.get(1));

    // Chaos: a share of the calls fails with documented failures; the client above gets through.
    cp.call("PUT", "/__sandbox/chaos", Map.of("rate", 0.3, "seed", 31, "parent_account_id", parent));
    int[] subs = {2001, 4002, 1002};
    for (int i = 0; i < 6; i++) {
      api.call("GET", controls);
      addBlockedVertical(api, controls, parentOf, subs[i % 3], false);
      api.call("PUT", statusPath, Map.of("status", i % 2 == 0 ? "paused" : "active"), uuid(), null);
      api.call("GET", statusPath);
    }
    cp.call("DELETE", "/__sandbox/chaos?parent_account_id=" + parent, null);
    JsonNode report = cp.call("GET", "/__sandbox/report?parent_account_id=" + parent, null);
    List<String> parts = new ArrayList<>();
    List<String> failing = new ArrayList<>();
    for (JsonNode r : report.get("resilience")) {
      String part = r.get("scenario").asText() + " " + r.get("recovered").asInt() + "/" + r.get("injected").asInt() + " "
          + r.get("outcome").asText();
      parts.add(part);
      if (!"passed".equals(r.get("outcome").asText())) failing.add(part + " " + r.get("evidence"));
    }
    if (parts.isEmpty() || !failing.isEmpty()) throw new IllegalStateException("chaos: not every failure recovered: " + failing);
    System.out.println("chaos: seed 31, every injected failure recovered: " + String.join(", ", parts));
  }

  /**
   * In a JVM with the JDK's defaults: the reset drill's GET (prints its status and
   * X-Sandbox-Warning), then a token request through a JDK Authenticator.
   */
  static void jdkDefaults(String base, String path, String token, String parent, String clientId) throws Exception {
    // A first call loads the client's classes, so that its resend comes as fast as in a warm JVM.
    HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + "/__sandbox/health")).build(),
        HttpResponse.BodyHandlers.discarding());
    HttpResponse<String> res = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + path))
        .header("Authorization", "Bearer " + token).header("X-Platform-Parent-Account-Id", parent).build(),
        HttpResponse.BodyHandlers.ofString());
    System.out.println(res.statusCode() + " " + res.headers().firstValue("X-Sandbox-Warning").orElse(""));
    int[] asked = {0};
    HttpClient withAuthenticator = HttpClient.newBuilder().authenticator(new Authenticator() {
      @Override
      protected PasswordAuthentication getPasswordAuthentication() {
        asked[0]++;
        return new PasswordAuthentication(clientId, PARTNER_SECRET.toCharArray());
      }
    }).build();
    try {
      System.out.println(tokenOutcome(withAuthenticator, tokenRequest(base, Map.of("grant_type", "client_credentials")).build()));
    } catch (IOException e) {
      System.out.println("asked " + asked[0] + " times for the same raw pair, then IOException: " + e.getMessage());
    }
  }

  public static void main(String[] args) {
    try {
      if (args.length == 6 && args[0].equals("--jdk-defaults")) {
        jdkDefaults(args[1], args[2], args[3], args[4], args[5]);
        return;
      }
      run();
    } catch (Exception e) {
      System.out.println("FAIL: " + e.getClass().getSimpleName() + ": " + e.getMessage());
      System.exit(1);
    }
    System.out.println("done");
  }
}
