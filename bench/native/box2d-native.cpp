// Steps the worlds of dump-recipes.ts on native Box2D (Debian's libbox2d-dev, 2.4.1) with box2d-engine.ts's
// settings, 1000 steps each, and prints steps per CPU second per level: the native row of bench:sim.
// Build and run: see bench/native/run.sh.
#include <box2d/box2d.h>
#include <ctime>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

struct Listener : b2ContactListener {
  long begins = 0, ends = 0;
  void BeginContact(b2Contact*) override { begins++; }
  void EndContact(b2Contact*) override { ends++; }
};

static double cpu() { return double(std::clock()) / CLOCKS_PER_SEC; }

int main(int argc, char** argv) {
  if (argc < 2) { std::fprintf(stderr, "usage: box2d-native recipes.txt [passes]\n"); return 2; }
  const int passes = argc > 2 ? std::atoi(argv[2]) : 5;
  std::ifstream in(argv[1]);
  std::vector<std::pair<std::string, std::vector<std::string>>> scenes;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("scene ", 0) == 0) scenes.push_back({line.substr(6, line.find(' ', 6) - 6), {}});
    else if (line != "end" && !scenes.empty()) scenes.back().second.push_back(line);
  }
  std::map<std::string, double> best;
  std::map<std::string, long> steps;
  for (int pass = 0; pass < passes; pass++) {
    std::map<std::string, double> seconds;
    for (auto& [level, lines] : scenes) {
      const double t0 = cpu();
      b2World world(b2Vec2(0.0f, -9.8f));
      Listener listener;
      world.SetAllowSleeping(true);
      world.SetWarmStarting(true);
      world.SetContinuousPhysics(true);
      world.SetSubStepping(false);
      world.SetContactListener(&listener);
      b2Body* body = nullptr;
      for (auto& l : lines) {
        std::istringstream s(l);
        std::string kind;
        s >> kind;
        if (kind == "body") {
          int dynamic; double x, y, a, ld, ad;
          s >> dynamic >> x >> y >> a >> ld >> ad;
          b2BodyDef def;
          def.type = dynamic ? b2_dynamicBody : b2_staticBody;
          def.position.Set(float(x), float(y));
          def.angle = float(a);
          def.bullet = dynamic != 0;
          def.linearDamping = float(ld);
          def.angularDamping = float(ad);
          body = world.CreateBody(&def);
          continue;
        }
        b2CircleShape circle;
        b2PolygonShape polygon;
        b2Shape* shape = &polygon;
        if (kind == "circle") { double r; s >> r; circle.m_radius = float(r); shape = &circle; }
        else if (kind == "box") { double hx, hy, cx, cy; s >> hx >> hy >> cx >> cy; polygon.SetAsBox(float(hx), float(hy), b2Vec2(float(cx), float(cy)), 0.0f); }
        else {
          int k; s >> k;
          std::vector<b2Vec2> v(k);
          for (auto& p : v) { double x, y; s >> x >> y; p.Set(float(x), float(y)); }
          polygon.Set(v.data(), k);
        }
        double density, friction, restitution; int sensor;
        s >> density >> friction >> restitution >> sensor;
        b2FixtureDef f;
        f.shape = shape;
        f.density = float(density);
        f.friction = float(friction);
        f.restitution = float(restitution);
        f.isSensor = sensor != 0;
        body->CreateFixture(&f);
      }
      for (int i = 0; i < 1000; i++) world.Step(float(1.0 / 60.0), 15, 20);
      seconds[level] += cpu() - t0;
      if (pass == 0) steps[level] += 1000;
    }
    for (auto& [level, s] : seconds) if (best[level] == 0 || s < best[level]) best[level] = s;
  }
  for (auto& [level, s] : best) std::printf("%s %.0f\n", level.c_str(), steps[level] / s);
  return 0;
}
