#include "train/checkpoint.h"

#include <cinttypes>
#include <cstdio>

#include "base/error.h"
#include "io/safetensors.h"
#include "model/parameters.h"

namespace mha {

namespace {

constexpr const char* kFormat = "mha-checkpoint";
// The moments are stored under their parameter's name with these prefixes; the weights under it bare.
constexpr const char* kFirstMoment = "adam_m.";
constexpr const char* kSecondMoment = "adam_v.";

// Everything a resumed run must share with the run that wrote the checkpoint: the recipe as a model
// file records it (task, batch, steps, optimiser, schedule, seed) and the model's shape.
std::string run_of(const Recipe& r) {
  const Config& c = r.config;
  std::string run = training_metadata(r, r.steps).at("recipe");
  run += std::string("; ") + preset_name(c.preset) + ", " + std::to_string(c.layers) + " layers, " + std::to_string(c.heads) + " heads, d_model " +
         std::to_string(c.d_model) + ", vocabulary " + std::to_string(c.vocab_size) + ", " + std::to_string(c.max_positions) +
         " positions";
  if (r.task == TaskKind::corpus) run += ", corpus " + r.corpus.corpus;
  return run;
}

std::string rng_text(const std::array<uint32_t, 4>& s) {
  char text[64];
  std::snprintf(text, sizeof text, "%08" PRIx32 " %08" PRIx32 " %08" PRIx32 " %08" PRIx32, s[0], s[1], s[2], s[3]);
  return text;
}

const std::string& metadata_of(const SafetensorsFile& file, const std::string& key) {
  const auto it = file.metadata().find(key);
  if (it == file.metadata().end()) throw Error(file.name() + " is not a training checkpoint: its __metadata__ has no \"" + key + "\"");
  return it->second;
}

ModelWeights read_weights(const SafetensorsFile& file, const Config& config, const std::string& prefix) {
  ModelWeights w = zeros_like(config);
  for_each_parameter(w, config, [&](const std::string& name, const ParameterSpec&, Tensor& t) {
    if (!file.has(prefix + name)) throw Error(file.name() + " has no tensor " + prefix + name + ": it is not this run's checkpoint");
    Tensor read = file.read_float(prefix + name);
    if (read.shape != t.shape) throw Error(file.name() + "'s " + prefix + name + " is not the shape this run's model has");
    t = std::move(read);
  });
  return w;
}

}  // namespace

std::vector<uint8_t> write_checkpoint(const Training& training, const std::map<std::string, std::string>& extra) {
  const Trainer& trainer = training.trainer();
  const Config& config = training.recipe().config;
  SafetensorsWriter out;
  for_each_parameter(trainer.weights(), config, [&](const std::string& name, const ParameterSpec&, const Tensor& t) { out.add(name, t); });
  for_each_parameter(trainer.adam_m(), config, [&](const std::string& name, const ParameterSpec&, const Tensor& t) { out.add(kFirstMoment + name, t); });
  for_each_parameter(trainer.adam_v(), config, [&](const std::string& name, const ParameterSpec&, const Tensor& t) { out.add(kSecondMoment + name, t); });
  for (const auto& [key, value] : extra) {
    if (key == "format" || key == "step" || key == "rng" || key == "run") throw Error("a checkpoint's own metadata key: " + key);
    out.set_metadata(key, value);
  }
  out.set_metadata("format", kFormat);
  out.set_metadata("step", std::to_string(trainer.steps_done()));
  out.set_metadata("rng", rng_text(training.data().state()));
  out.set_metadata("run", run_of(training.recipe()));
  return out.bytes();
}

std::map<std::string, std::string> restore_checkpoint(Training& training, const std::vector<uint8_t>& bytes, const std::string& name) {
  const SafetensorsFile file(bytes.data(), bytes.size(), name);
  if (metadata_of(file, "format") != kFormat) throw Error(name + " is not a training checkpoint (its format is not " + kFormat + ")");
  const std::string& run = metadata_of(file, "run");
  if (run != run_of(training.recipe()))
    throw Error(name + " was written by another run: it trained «" + run + "», this run trains «" + run_of(training.recipe()) +
                "». Resume with the options that started it, or start afresh without --resume.");
  int step = -1;
  std::array<uint32_t, 4> rng{};
  const std::string& step_text = metadata_of(file, "step");
  char tail = 0;
  if (std::sscanf(step_text.c_str(), "%d%c", &step, &tail) != 1 || step < 0 || step > training.recipe().steps)
    throw Error(name + "'s step is not a step of this run: " + step_text);
  if (std::sscanf(metadata_of(file, "rng").c_str(), "%8" SCNx32 " %8" SCNx32 " %8" SCNx32 " %8" SCNx32 "%c", &rng[0], &rng[1], &rng[2],
                  &rng[3], &tail) != 4)
    throw Error(name + "'s rng is not four hexadecimal words");
  const Config& config = training.recipe().config;
  ModelWeights weights = read_weights(file, config, ""), m = read_weights(file, config, kFirstMoment),
               v = read_weights(file, config, kSecondMoment);
  training.trainer().restore(std::move(weights), std::move(m), std::move(v), step);  // checks them all before changing any
  training.data().set_state(rng);
  return file.metadata();
}

}  // namespace mha
