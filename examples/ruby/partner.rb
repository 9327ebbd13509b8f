# frozen_string_literal: true

# A partner integration in Ruby against the partnership sandbox, with Debian's libraries:
# Faraday 1.1 (its net_http adapter) for the API and the control plane, the oauth2 gem for
# client-credentials tokens, Net::HTTP for the reset drill.
#
#   SANDBOX_URL=http://127.0.0.1:4010 ruby partner.rb
#
# SANDBOX_ADMIN_TOKEN: the control-plane token, when the sandbox has one.
# SANDBOX_WAIT=clock: waits between propagation retries move the sandbox clock instead of
# sleeping (a test run); the default sleeps for real, as a client would.
#
# The tour (token, mappings, register, the propagation retry of spec 5.5, the rule-5 recipe
# with its 409 retry, a dry run, status), the partial failure, the Basic-auth trap of
# RFC 6749 2.3.1, what a reset looks like, and a chaos run that converges. Each step prints
# one line; the first failure prints "FAIL: ..." and exits 1.

require 'cgi'
require 'faraday'
require 'json'
require 'net/http'
require 'oauth2'
require 'securerandom'

PROPAGATION_RETRY_EVERY = 20 # spec 5.5: every 15 to 30 seconds
PROPAGATION_GIVE_UP = 120    # spec 5.5: for up to two minutes
# A secret with characters RFC 6749 section 2.3.1 form-encodes before HTTP Basic.
PARTNER_SECRET = 'rb+secret/42'

# --- typed envelopes: the spec's fields, anything else ignored, error.code read ----------

ApiError = Struct.new(:code, :details, keyword_init: true)
Envelope = Struct.new(:http_status, :status, :error, :message, :request_id, :data, :dry_run, keyword_init: true)

# Builds a Struct from a Hash, keeping the members it names and ignoring any other key (a
# field the service adds later, such as the envelope's dry_run, must not break a client).
def typed(struct, hash)
  struct.new(**struct.members.to_h { |m| [m, hash[m.to_s]] })
end

def envelope(res)
  body = JSON.parse(res.body)
  env = typed(Envelope, body)
  env.http_status = res.status
  env.error = typed(ApiError, body['error']) if body['error']
  raise "envelope status #{env.status} on HTTP #{res.status}" unless env.status == res.status

  env
end

# --- the control plane: plain HTTP ---------------------------------------------------------

class ControlPlane
  def initialize(base, admin_token)
    @http = Faraday.new(url: base, headers: { 'Content-Type' => 'application/json' })
    @http.headers['Authorization'] = "Bearer #{admin_token}" if admin_token
  end

  def call(method, path, body = nil, ok404: false)
    res = @http.run_request(method, path, body && JSON.generate(body), nil)
    return nil if ok404 && res.status == 404
    raise "#{method.upcase} #{path}: #{res.status} #{res.body}" if res.status >= 300

    res.body.empty? ? {} : JSON.parse(res.body)
  end

  def create_partner(secret)
    call(:post, '/__sandbox/partners', { client_secret: secret })
  end

  def seed_taxonomy(parent)
    rows = [
      [10, 'Apparel & Accessories', 1001, "Women's Clothing", 'Apparel > Womenswear'],
      [10, 'Apparel & Accessories', 1002, "Men's Clothing", 'Apparel > Menswear'],
      [20, 'Health & Beauty', 2001, 'Skincare', 'Beauty > Skincare'],
      [20, 'Health & Beauty', 2002, 'Vitamins & Supplements', 'Health > Dietary Supplements'],
      [40, 'Games & Gambling', 4002, 'Online Casino', 'Gambling > Casino'],
      [40, 'Games & Gambling', 4003, 'Sports Betting', 'Gambling > Sports Betting']
    ]
    keys = %w[partner_vertical_id partner_vertical_name partner_sub_vertical_id partner_sub_vertical_name vertical_name]
    call(:put, "/__sandbox/partners/#{parent}/vertical-mappings", { vertical_mappings: rows.map { |r| keys.zip(r).to_h } })
  end

  def arm(account_id, scenario, value: nil, times: 1)
    body = { scenario: scenario, account_id: account_id, times: times }
    body[:value] = value if value
    call(:put, '/__sandbox/scenarios', body)
  end

  # This partner's clock (docs/parallel-tests.md); the global one where that is absent.
  def advance_clock(parent, seconds)
    return unless call(:post, "/__sandbox/partners/#{parent}/clock/advance", { seconds: seconds }, ok404: true).nil?

    call(:post, '/__sandbox/clock/advance', { seconds: seconds })
  end

  def journal(parent, path)
    call(:get, "/__sandbox/requests?parent_account_id=#{parent}&path=#{CGI.escape(path)}")['requests']
  end
end

# --- tokens: the oauth2 gem ----------------------------------------------------------------

def oauth_client(base, partner, scheme)
  OAuth2::Client.new(partner['client_id'], partner['client_secret'],
                     site: base, token_url: '/oauth/token', auth_scheme: scheme)
end

# The oauth2 gem's :basic_auth sends client_id:client_secret without RFC 6749 2.3.1's
# form-encoding; this header does it as the RFC says.
def form_encoded_basic(partner)
  pair = "#{CGI.escape(partner['client_id'])}:#{CGI.escape(partner['client_secret'])}"
  "Basic #{[pair].pack('m0')}"
end

def token_outcome(base, partner, scheme, headers = {})
  oauth_client(base, partner, scheme).client_credentials.get_token(headers: headers)
  '200'
rescue OAuth2::Error => e
  "#{e.code}: #{e.description}"
end

# --- the partner's API client --------------------------------------------------------------

class Api
  attr_reader :parent, :waits, :refreshes

  def initialize(base, partner, wait:)
    @base = base
    @partner = partner
    @parent = partner['parent_account_id']
    @wait = wait
    @waits = []
    @refreshes = 0
    # Faraday 1.1's net_http adapter sets Net::HTTP's max_retries to 0 and opens a connection
    # per request: a reset reaches this code as Faraday::ConnectionFailed.
    @http = Faraday.new(url: base)
    fetch_token
  end

  def token
    @token
  end

  def fetch_token
    # client_secret_post (the gem's default :request_body): no Basic-auth encoding to get wrong.
    @token = oauth_client(@base, @partner, :request_body).client_credentials.get_token
  end

  # One call, retried the way the spec and the sandbox's documents advise: 429 after
  # Retry-After, a 5xx or a reset after a short back-off (the same Idempotency-Key: a failed
  # call applied nothing), a new token when it expired, the propagation 401/403 every 20 s.
  # Answers the envelope; a 409 or any other error is the caller's to handle.
  def call(method, path, body = nil, key: nil, scenario: nil, dry_run: false, attempts: 12)
    attempts.times do
      res = begin
        send_once(method, path, body, key, scenario, dry_run)
      rescue Faraday::ConnectionFailed
        sleep 0.2 # a deliberate retry backs off (a library's resend comes within 100 ms)
        next
      end
      env = envelope(res)
      case [res.status, env.error&.code]
      in [429, _]
        @waits << res.headers['Retry-After'].to_f
        sleep @waits.last
      in [500.., _]
        sleep 0.2
      in [401, 'token_expired'] | [401, 'unauthorized']
        fetch_token
        @refreshes += 1
      in [401 | 403, 'auth_propagation_pending'] if scenario.nil?
        @wait.call(PROPAGATION_RETRY_EVERY)
      else
        return env
      end
    end
    raise "#{method.upcase} #{path}: no success after #{attempts} attempts"
  end

  def send_once(method, path, body, key, scenario, dry_run)
    @http.run_request(method, dry_run ? "#{path}?dry_run=true" : path, body && JSON.generate(body), nil) do |req|
      req.headers['Authorization'] = "Bearer #{@token.token}"
      req.headers['X-Platform-Parent-Account-Id'] = @parent
      req.headers['Content-Type'] = 'application/json' if body
      req.headers['Idempotency-Key'] = key if key
      req.headers['X-Sandbox-Scenario'] = scenario if scenario
    end
  end
end

# --- the flow -----------------------------------------------------------------------------

# Spec rule 5: GET, rebuild the body from the Block entries (each sub-vertical mapped back to
# its vertical), add one, keep the domains, pass content_hash back, PUT; on 409 re-read and
# re-apply with the same key (spec rule 4 allows it after a stale-hash rejection).
def add_blocked_vertical(api, path, parent_of, sub, drill: true)
  key = SecureRandom.uuid
  conflicts = 0
  4.times do |attempt|
    current = api.call(:get, path).data
    list = current['marketplace_controls_list']
    blocked = current['translated_verticals']
              .select { |v| v['policy'] == 'Block' && v['vertical_id'] != sub }
              .map { |v| { partnerVerticalId: parent_of.fetch(v['vertical_id']), partnerSubVerticalId: v['vertical_id'] } }
    blocked << { partnerVerticalId: parent_of.fetch(sub), partnerSubVerticalId: sub }
    body = {
      blockedVerticals: blocked.map { |b| b.merge(policy: 'Block', position1Policy: 'Block') },
      domains: list['domains'].map { |d| { domain: d['domain'], policy: d['policy'] } },
      contentHash: list['content_hash']
    }
    scenario = drill && attempt.zero? ? 'stale-content-hash' : nil # a concurrent writer wins
    res = api.call(:put, path, body, key: key, scenario: scenario)
    if res.error&.code == 'content_hash_mismatch'
      conflicts += 1
      next
    end
    raise "controls PUT: #{res.status} #{res.message}" if res.error

    return [conflicts, res.data['translated_verticals'].select { |v| v['policy'] == 'Block' }.map { |v| v['vertical_id'] }.sort]
  end
  raise 'controls PUT kept conflicting'
end

def main
  base = ENV.fetch('SANDBOX_URL', 'http://127.0.0.1:4010').chomp('/')
  cp = ControlPlane.new(base, ENV['SANDBOX_ADMIN_TOKEN'])

  # A tenant of our own: drills, clock moves and the journal stay ours.
  partner = cp.create_partner(PARTNER_SECRET)
  parent = partner['parent_account_id']
  cp.seed_taxonomy(parent)
  puts "partner: #{parent} created and seeded on the control plane"
  wait = lambda do |seconds|
    ENV['SANDBOX_WAIT'] == 'clock' ? cp.advance_clock(parent, seconds) : sleep(seconds)
  end

  # RFC 6749 2.3.1: the oauth2 gem's basic_auth does not form-encode the secret.
  puts "basic auth, oauth2 gem auth_scheme: :basic_auth, secret #{PARTNER_SECRET.inspect}: #{token_outcome(base, partner, :basic_auth)}"
  # (A header passed to get_token wins over the gem's own Basic header.)
  puts "basic auth, form-encoded first: #{token_outcome(base, partner, :basic_auth, { 'Authorization' => form_encoded_basic(partner) })}"
  puts "client_secret_post (auth_scheme: :request_body): #{token_outcome(base, partner, :request_body)}"

  api = Api.new(base, partner, wait: wait)
  puts "token: #{api.token.params['token_type']}, expires in #{api.token.expires_in} s"

  mappings = api.call(:get, '/v1/partnership/vertical-mappings').data['vertical_mappings']
  parent_of = mappings.to_h { |m| [m['partner_sub_vertical_id'], m['partner_vertical_id']] }
  puts "mappings: #{parent_of.size} sub-verticals"

  register = {
    brand: 'Ruby Ramblers', vertical_id: 10, sub_vertical_id: 1001, country_code: 'US',
    platform_parent_account_id: parent, store_identifier: 'https://ruby.example.com',
    external_account_id: "rb-#{SecureRandom.uuid}"
  }
  path = '/v1/accounts/register/partnership'
  first = api.call(:post, path, register, scenario: 'auth-propagation=60')
  account = first.data['account_id']
  again = api.call(:post, path, register)
  raise 'the same external_account_id registered a second account' unless again.data['account_id'] == account

  puts "register: #{account}, #{first.data['pages'].size} pages; the same external_account_id again matched it"

  # Spec 5.5: a new account's calls answer 401 or 403 for up to two minutes.
  controls = "/v1/partnership/accounts/#{account}/marketplacecontrolslists"
  api.call(:get, controls) # Api#call retries the propagation 401/403 every 20 s itself
  statuses = cp.journal(parent, controls).reverse.map { |e| e['status'] }
  seen = statuses.take_while { |s| [401, 403].include?(s) }
  raise "authentication never propagated to #{account}" if seen.size * PROPAGATION_RETRY_EVERY > PROPAGATION_GIVE_UP

  puts "propagation: #{seen.join(', ')}, then #{statuses[seen.size]} (retried every #{PROPAGATION_RETRY_EVERY} s)"

  conflicts, blocked = add_blocked_vertical(api, controls, parent_of, 2002)
  puts "rule 5: blocked #{blocked} after #{conflicts} conflict (409 content_hash_mismatch: re-read, re-applied, same Idempotency-Key)"

  status_path = "/v1/partnership/accounts/#{account}/status"
  dry = api.call(:put, status_path, { status: 'paused' }, key: SecureRandom.uuid, dry_run: true)
  now = api.call(:get, status_path)
  paused = api.call(:put, status_path, { status: 'paused' }, key: SecureRandom.uuid)
  puts "status: dry run showed #{dry.data['status']} (dry_run #{dry.dry_run}) while the account stayed #{now.data['status']}; then #{paused.data['status']} (#{paused.data['variants'].size} variants)"

  # Partial failure (spec section 3): some variants fail to update; keep request_id, re-check,
  # then retry with a fresh key (the same key would only replay the partial failure).
  partial = api.call(:put, status_path, { status: 'active' }, key: SecureRandom.uuid, scenario: 'status-partial-failure=1')
  raise "partial failure: #{partial.error&.code} #{partial.data}" unless partial.error&.code == 'partial_failure'

  recheck = api.call(:get, status_path)
  fixed = api.call(:put, status_path, { status: 'active' }, key: SecureRandom.uuid)
  puts "partial failure: 200 #{partial.error.code}, status #{partial.data['status']}, kept request_id #{partial.request_id}; re-checked #{recheck.data['status']}, retried with a fresh key: #{fixed.data['status']}"

  # What a reset looks like. Faraday: ConnectionFailed (its retry middleware does not retry it
  # by default). Net::HTTP on its own resends an idempotent request once (max_retries = 1).
  cp.arm(account, 'connection-reset')
  begin
    api.send_once(:get, status_path, nil, nil, nil, false)
    raise 'connection-reset: the Faraday call succeeded'
  rescue Faraday::ConnectionFailed => e
    puts "connection-reset, Faraday: #{e.class}: #{e.message}"
  end
  retrying = Faraday.new(url: base) { |f| f.request :retry, max: 2 }
  cp.arm(account, 'connection-reset')
  begin
    retrying.get(status_path, nil, 'Authorization' => "Bearer #{api.token.token}")
    raise 'connection-reset: the retry middleware got an answer'
  rescue Faraday::ConnectionFailed => e
    puts "connection-reset, Faraday retry middleware (defaults): #{e.class}, not retried"
  end
  # Told to retry ConnectionFailed, the middleware resends at once (interval 0): the sandbox
  # sees a repeat within 100 ms and says so.
  eager = Faraday.new(url: base) { |f| f.request :retry, max: 2, exceptions: [Faraday::ConnectionFailed] }
  cp.arm(account, 'connection-reset')
  res = eager.get(status_path, nil, 'Authorization' => "Bearer #{api.token.token}", 'X-Platform-Parent-Account-Id' => parent)
  warning = res.headers['X-Sandbox-Warning'].to_s
  raise "retry middleware: #{res.status}, warning #{warning.inspect}" unless res.status == 200 && warning.include?('interval')

  puts "connection-reset, Faraday retry middleware with exceptions: [ConnectionFailed]: the caller saw #{res.status}; X-Sandbox-Warning names the retry interval"
  uri = URI("#{base}#{status_path}")
  headers = { 'Authorization' => "Bearer #{api.token.token}", 'X-Platform-Parent-Account-Id' => parent }
  cp.arm(account, 'connection-reset')
  res = Net::HTTP.start(uri.host, uri.port) { |http| http.get(uri.path, headers) }
  warning = res['X-Sandbox-Warning'].to_s
  raise "Net::HTTP: #{res.code}, warning #{warning.inspect}" unless res.code == '200' && warning.include?('max_retries = 0')

  puts "connection-reset, Net::HTTP default: the caller saw #{res.code}; X-Sandbox-Warning: #{warning[0, 80]}..."
  cp.arm(account, 'connection-reset')
  begin
    Net::HTTP.start(uri.host, uri.port) do |http|
      http.max_retries = 0
      http.get(uri.path, headers)
    end
    raise 'connection-reset: Net::HTTP with max_retries = 0 got an answer'
  rescue Errno::ECONNRESET => e
    puts "connection-reset, Net::HTTP max_retries = 0: #{e.class}"
  end

  # Chaos: a share of the calls fails with documented failures; the client above gets through.
  cp.call(:put, '/__sandbox/chaos', { rate: 0.3, seed: 31, parent_account_id: parent })
  6.times do |i|
    api.call(:get, controls)
    add_blocked_vertical(api, controls, parent_of, [2001, 4002, 1002][i % 3], drill: false)
    api.call(:put, status_path, { status: i.even? ? 'paused' : 'active' }, key: SecureRandom.uuid)
    api.call(:get, status_path)
  end
  chaos = cp.call(:delete, "/__sandbox/chaos?parent_account_id=#{parent}")
  report = cp.call(:get, "/__sandbox/report?parent_account_id=#{parent}")
  parts = report['resilience'].map { |r| "#{r['scenario']} #{r['recovered']}/#{r['injected']} #{r['outcome']}" }
  failing = report['resilience'].reject { |r| r['outcome'] == 'passed' }
  raise "chaos: not every failure recovered: #{failing}" unless failing.empty? && !parts.empty?

  puts "chaos: seed 31, every injected failure recovered: #{parts.join(', ')}"
  puts "chaos profiles left: #{chaos['profiles'].size}"
end

begin
  main
rescue StandardError => e
  puts "FAIL: #{e.class}: #{e.message}"
  exit 1
end
puts 'done'
