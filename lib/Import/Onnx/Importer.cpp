//===- Importer.cpp - ONNX model to TOSA importer -------------------------===//
//
// Part of the pipewave project.
//
// Loads and checks the model with libonnx, maps initializers to `pipe.param`
// arguments (their values go to a safetensors file), graph inputs to data
// arguments and dispatches every node to its op-family importer.
//
//===----------------------------------------------------------------------===//

#include "pipewave/Dialect/Pipe/IR/Pipe.h"
#include "pipewave/Import/OnnxImporter.h"

#include "OnnxOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <onnx/checker.h>
#include <onnx/defs/schema.h>
#include <onnx/shape_inference/implementation.h>
#include <onnx/version_converter/convert.h>

#include <exception>
#include <fstream>
#include <set>

using namespace mlir;
using namespace pipewave;
using namespace pipewave::onnximport;

//===----------------------------------------------------------------------===//
// Importer helpers
//===----------------------------------------------------------------------===//

Type pipewave::onnximport::convertElementType(MLIRContext *ctx, int t) {
  Builder b(ctx);
  switch (t) {
  case onnx::TensorProto::FLOAT:
    return b.getF32Type();
  case onnx::TensorProto::DOUBLE:
    return b.getF64Type();
  case onnx::TensorProto::FLOAT16:
    return b.getF16Type();
  case onnx::TensorProto::BFLOAT16:
    return b.getBF16Type();
  case onnx::TensorProto::INT8:
    return b.getIntegerType(8);
  case onnx::TensorProto::INT16:
    return b.getIntegerType(16);
  case onnx::TensorProto::INT32:
    return b.getI32Type();
  case onnx::TensorProto::INT64:
    return b.getI64Type();
  case onnx::TensorProto::BOOL:
    return b.getI1Type();
  default:
    return {};
  }
}

LogicalResult Importer::error(const Twine &message) {
  if (errorText.empty())
    errorText = message.str();
  return failure();
}

Value Importer::materialize(DenseElementsAttr c) {
  auto t = llvm::cast<RankedTensorType>(c.getType());
  return tosa::ConstOp::create(b, loc, t, c);
}

Value Importer::input(const Node &n, int i) {
  if (!hasInput(n, i)) {
    (void)error("missing input " + Twine(i));
    return {};
  }
  const std::string &name = n.input(i);
  auto it = values.find(name);
  if (it != values.end())
    return it->second;
  auto c = constants.find(name);
  if (c != constants.end()) {
    if (c->second.getNumElements() == 0) {
      (void)error("empty tensors are not supported ('" + name + "' is empty)");
      return {};
    }
    Value v = materialize(c->second);
    values[name] = v;
    return v;
  }
  (void)error("input '" + name + "' is not defined");
  return {};
}

std::optional<DenseElementsAttr> Importer::constInput(const Node &n, int i) {
  if (!hasInput(n, i))
    return std::nullopt;
  auto c = constants.find(n.input(i));
  if (c == constants.end())
    return std::nullopt;
  return c->second;
}

std::optional<SmallVector<int64_t>> Importer::constInts(const Node &n, int i) {
  auto c = constInput(n, i);
  if (!c || !llvm::isa<IntegerType>(c->getElementType()))
    return std::nullopt;
  SmallVector<int64_t> out;
  for (const APInt &v : c->getValues<APInt>())
    out.push_back(c->getElementType().isInteger(1) ? v.getZExtValue()
                                                   : v.getSExtValue());
  return out;
}

const onnx::AttributeProto *Importer::attr(const Node &n,
                                           StringRef name) const {
  for (const auto &a : n.attribute())
    if (a.name() == name)
      return &a;
  return nullptr;
}

int64_t Importer::attrInt(const Node &n, StringRef name, int64_t dflt) const {
  const auto *a = attr(n, name);
  return a ? a->i() : dflt;
}

float Importer::attrFloat(const Node &n, StringRef name, float dflt) const {
  const auto *a = attr(n, name);
  return a ? a->f() : dflt;
}

std::string Importer::attrString(const Node &n, StringRef name,
                                 StringRef dflt) const {
  const auto *a = attr(n, name);
  return a ? a->s() : dflt.str();
}

std::optional<SmallVector<int64_t>> Importer::attrInts(const Node &n,
                                                       StringRef name) const {
  const auto *a = attr(n, name);
  if (!a)
    return std::nullopt;
  return SmallVector<int64_t>(a->ints().begin(), a->ints().end());
}

Value Importer::constShape(ArrayRef<int64_t> s) {
  auto attrType = RankedTensorType::get({(int64_t)s.size()}, b.getIndexType());
  auto shapeType = tosa::shapeType::get(ctx, s.size());
  return tosa::ConstShapeOp::create(b, loc, shapeType,
                                    DenseIntElementsAttr::get(attrType, s));
}

Value Importer::reshape(Value v, ArrayRef<int64_t> s) {
  if (shape(v) == s)
    return v;
  return tosa::ReshapeOp::create(b, loc, tensor(s, elem(v)), v, constShape(s));
}

Value Importer::transpose(Value v, ArrayRef<int32_t> perms) {
  bool identity = true;
  SmallVector<int64_t> s;
  for (auto [i, p] : llvm::enumerate(perms)) {
    identity &= (int64_t)i == p;
    s.push_back(shape(v)[p]);
  }
  if (identity)
    return v;
  return tosa::TransposeOp::create(b, loc, tensor(s, elem(v)), v,
                                   b.getDenseI32ArrayAttr(perms));
}

Value Importer::splat(double value, Type e, ArrayRef<int64_t> s) {
  auto t = tensor(s, e);
  DenseElementsAttr attr;
  if (auto ft = llvm::dyn_cast<FloatType>(e))
    attr = DenseElementsAttr::get(t, b.getFloatAttr(ft, value));
  else
    attr = DenseElementsAttr::get(t, b.getIntegerAttr(e, (int64_t)value));
  return tosa::ConstOp::create(b, loc, t, attr);
}

Value Importer::shift() { return splat(0, b.getIntegerType(8), {1}); }

Value Importer::zeroPoint(Type e) { return splat(0, e, {1}); }

Value Importer::cast(Value v, Type e) {
  if (!v)
    return {};
  if (elem(v) == e)
    return v;
  return tosa::CastOp::create(b, loc, tensor(shape(v), e), v);
}

void Importer::alignRanks(Value &a, Value &c) {
  int64_t ra = shape(a).size(), rc = shape(c).size();
  auto pad = [&](Value v, int64_t rank) {
    SmallVector<int64_t> s(rank - shape(v).size(), 1);
    llvm::append_range(s, shape(v));
    return reshape(v, s);
  };
  if (ra < rc)
    a = pad(a, rc);
  else if (rc < ra)
    c = pad(c, ra);
}

std::optional<SmallVector<int64_t>>
Importer::broadcastShape(ArrayRef<int64_t> a, ArrayRef<int64_t> c) {
  size_t r = std::max(a.size(), c.size());
  SmallVector<int64_t> out(r);
  for (size_t i = 0; i < r; ++i) {
    int64_t da = i < r - a.size() ? 1 : a[i - (r - a.size())];
    int64_t dc = i < r - c.size() ? 1 : c[i - (r - c.size())];
    if (da != dc && da != 1 && dc != 1)
      return std::nullopt;
    out[i] = da == 1 ? dc : da;
  }
  return out;
}

Value Importer::mul(Value a, Value c) {
  if (!a || !c)
    return {};
  alignRanks(a, c);
  auto s = broadcastShape(shape(a), shape(c));
  if (!s) {
    (void)error("operand shapes do not broadcast");
    return {};
  }
  return tosa::MulOp::create(b, loc, tensor(*s, elem(a)), a, c, shift());
}

Value Importer::reduceSum(Value v, ArrayRef<int64_t> axes) {
  for (int64_t a : axes)
    v = reduce<tosa::ReduceSumOp>(v, a);
  return v;
}

Value Importer::reduceMax(Value v, ArrayRef<int64_t> axes) {
  for (int64_t a : axes)
    v = reduce<tosa::ReduceMaxOp>(v, a);
  return v;
}

std::optional<int64_t> Importer::axis(int64_t a, int64_t rank) {
  if (a < 0)
    a += rank;
  if (a < 0 || a >= std::max<int64_t>(rank, 1)) {
    (void)error("axis out of range");
    return std::nullopt;
  }
  return a;
}

//===----------------------------------------------------------------------===//
// Tensor data
//===----------------------------------------------------------------------===//

namespace {

int64_t elementBytes(int t) {
  switch (t) {
  case onnx::TensorProto::DOUBLE:
  case onnx::TensorProto::INT64:
    return 8;
  case onnx::TensorProto::FLOAT:
  case onnx::TensorProto::INT32:
    return 4;
  case onnx::TensorProto::FLOAT16:
  case onnx::TensorProto::BFLOAT16:
  case onnx::TensorProto::INT16:
    return 2;
  case onnx::TensorProto::INT8:
  case onnx::TensorProto::UINT8:
  case onnx::TensorProto::BOOL:
    return 1;
  default:
    return 0;
  }
}

const char *safetensorsDtype(int t) {
  switch (t) {
  case onnx::TensorProto::DOUBLE:
    return "F64";
  case onnx::TensorProto::FLOAT:
    return "F32";
  case onnx::TensorProto::FLOAT16:
    return "F16";
  case onnx::TensorProto::BFLOAT16:
    return "BF16";
  case onnx::TensorProto::INT64:
    return "I64";
  case onnx::TensorProto::INT32:
    return "I32";
  case onnx::TensorProto::INT16:
    return "I16";
  case onnx::TensorProto::INT8:
    return "I8";
  case onnx::TensorProto::BOOL:
    return "BOOL";
  default:
    return nullptr;
  }
}

/// The real path of the external data file of `t`, which must be inside
/// `modelDir` (a relative location that stays inside after resolving `..`
/// and symbolic links).
bool externalDataPath(const onnx::TensorProto &t, StringRef modelDir,
                      std::string &path, std::string &err) {
  std::string location;
  for (const auto &kv : t.external_data())
    if (kv.key() == "location")
      location = kv.value();
  auto describe = [&] {
    return "external data '" + location + "' of tensor '" + t.name() + "'";
  };
  if (location.empty()) {
    err = "tensor '" + t.name() + "' has external data without a location";
    return false;
  }
  auto outside = [&] {
    err = describe() + " points outside the model's folder (external data "
                       "must be a relative path inside it)";
    return false;
  };
  if (llvm::sys::path::is_absolute(location) ||
      llvm::sys::path::is_absolute(location, llvm::sys::path::Style::windows))
    return outside();
  // Lexically: `..` may not climb above the model's folder.
  int depth = 0;
  for (StringRef part : llvm::make_range(llvm::sys::path::begin(location),
                                         llvm::sys::path::end(location))) {
    if (part == "..")
      --depth;
    else if (part != ".")
      ++depth;
    if (depth < 0)
      return outside();
  }
  SmallString<256> dir(modelDir), file(modelDir), realDir, realFile;
  llvm::sys::path::append(file, location);
  if (llvm::sys::fs::real_path(dir, realDir) ||
      llvm::sys::fs::real_path(file, realFile)) {
    err = describe() + " does not exist in the model's folder";
    return false;
  }
  // Symbolic links may still lead out.
  if (!StringRef(realFile).starts_with((realDir + "/").str()))
    return outside();
  path = std::string(realFile);
  return true;
}

/// The little-endian bytes of a tensor, from raw_data, the typed fields or
/// external data (which must stay inside `modelDir`).
bool tensorBytes(const onnx::TensorProto &t, StringRef modelDir,
                 std::string &out, std::string &err) {
  int64_t numel = 1;
  for (int64_t d : t.dims()) {
    if (d < 0 || __builtin_mul_overflow(numel, d, &numel) ||
        numel > (int64_t(1) << 40)) {
      err = "tensor '" + t.name() + "' has an invalid shape";
      return false;
    }
  }
  int64_t eb = elementBytes(t.data_type());
  if (!eb) {
    err = "tensor '" + t.name() + "' has an unsupported data type (" +
          std::to_string(t.data_type()) + ")";
    return false;
  }
  int64_t want = numel * eb;
  out.clear();
  if (t.data_location() == onnx::TensorProto::EXTERNAL) {
    std::string path;
    if (!externalDataPath(t, modelDir, path, err))
      return false;
    int64_t offset = 0, length = want;
    for (const auto &kv : t.external_data()) {
      int64_t *field = kv.key() == "offset"   ? &offset
                       : kv.key() == "length" ? &length
                                              : nullptr;
      if (field && StringRef(kv.value()).getAsInteger(10, *field)) {
        err = "external data of tensor '" + t.name() + "' has an invalid " +
              kv.key() + " '" + kv.value() + "'";
        return false;
      }
    }
    auto buf = llvm::MemoryBuffer::getFile(path);
    if (!buf) {
      err = "cannot read external data '" + path +
            "': " + buf.getError().message();
      return false;
    }
    int64_t size = (int64_t)(*buf)->getBufferSize();
    if (offset < 0 || length != want || offset > size ||
        length > size - offset) {
      err = "external data of tensor '" + t.name() + "' is truncated (" +
            std::to_string(want) + " bytes at offset " +
            std::to_string(offset) + " of a " + std::to_string(size) +
            "-byte file)";
      return false;
    }
    out.assign((*buf)->getBufferStart() + offset, length);
    return true;
  }
  if (t.has_raw_data()) {
    out = t.raw_data();
  } else {
    switch (t.data_type()) {
    case onnx::TensorProto::FLOAT:
      out.assign((const char *)t.float_data().data(), t.float_data_size() * 4);
      break;
    case onnx::TensorProto::DOUBLE:
      out.assign((const char *)t.double_data().data(),
                 t.double_data_size() * 8);
      break;
    case onnx::TensorProto::INT64:
      out.assign((const char *)t.int64_data().data(), t.int64_data_size() * 8);
      break;
    default:
      for (int32_t v : t.int32_data())
        out.append((const char *)&v, eb); // little-endian truncation
    }
  }
  if ((int64_t)out.size() != want) {
    err = "tensor '" + t.name() + "' has " + std::to_string(out.size()) +
          " bytes of data, expected " + std::to_string(want) +
          " (truncated or corrupt file?)";
    return false;
  }
  return true;
}

DenseElementsAttr toAttr(MLIRContext *ctx, const onnx::TensorProto &t,
                         StringRef bytes) {
  SmallVector<int64_t> dims(t.dims().begin(), t.dims().end());
  auto type =
      RankedTensorType::get(dims, convertElementType(ctx, t.data_type()));
  if (t.data_type() == onnx::TensorProto::BOOL) {
    SmallVector<bool> bits;
    for (char c : bytes)
      bits.push_back(c != 0);
    return DenseElementsAttr::get(type, bits);
  }
  return DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(bytes.data(), bytes.size()));
}

std::string jsonEscape(StringRef s) {
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if ((unsigned char)c < 0x20) {
      char buf[8];
      snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out;
}

struct Param {
  std::string name;
  int dtype;
  SmallVector<int64_t> dims;
  std::string bytes;
};

bool writeSafetensors(const std::string &path, ArrayRef<Param> params,
                      std::string &err) {
  std::string header = "{";
  uint64_t offset = 0;
  for (auto [i, p] : llvm::enumerate(params)) {
    if (i)
      header += ",";
    header += "\"" + jsonEscape(p.name) + "\":{\"dtype\":\"" +
              safetensorsDtype(p.dtype) + "\",\"shape\":[";
    for (auto [j, d] : llvm::enumerate(p.dims))
      header += (j ? "," : "") + std::to_string(d);
    header += "],\"data_offsets\":[" + std::to_string(offset) + ",";
    offset += p.bytes.size();
    header += std::to_string(offset) + "]}";
  }
  header += "}";
  while (header.size() % 8)
    header += ' ';
  std::error_code ec;
  llvm::raw_fd_ostream os(path, ec);
  if (ec) {
    err = "cannot write '" + path + "': " + ec.message();
    return false;
  }
  uint64_t n = header.size();
  char len[8];
  for (int i = 0; i < 8; ++i)
    len[i] = (char)((n >> (8 * i)) & 0xff);
  os.write(len, 8);
  os << header;
  for (const Param &p : params)
    os.write(p.bytes.data(), p.bytes.size());
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// Model import
//===----------------------------------------------------------------------===//

namespace {
int64_t defaultOpset(const onnx::ModelProto &m) {
  for (const auto &imp : m.opset_import())
    if (imp.domain().empty() || imp.domain() == "ai.onnx")
      return imp.version();
  return 0;
}

OpTable &opTable() {
  static OpTable table = [] {
    OpTable t;
    populateElementwiseOps(t);
    populateMatMulOps(t);
    populateReductionOps(t);
    populateShapeOps(t);
    populateNNOps(t);
    return t;
  }();
  return table;
}
} // namespace

std::vector<std::string> pipewave::supportedOnnxOps() {
  std::vector<std::string> ops;
  for (const auto &entry : opTable())
    ops.push_back(entry.getKey().str());
  llvm::sort(ops);
  return ops;
}

OwningOpRef<ModuleOp>
pipewave::importOnnxModel(const std::string &path, MLIRContext &context,
                          const OnnxImportOptions &options,
                          std::string &error) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer) {
    error = "cannot read '" + path + "': " + buffer.getError().message();
    return {};
  }
  return importOnnxModelFromBuffer((*buffer)->getBufferStart(),
                                   (*buffer)->getBufferSize(), path, context,
                                   options, error);
}

/// Erases the ops whose results nothing uses. Exporters compute shapes with
/// ops whose values only feed `Shape` (PyTorch's broadcast_tensors in
/// F.mse_loss adds a ConstantOfShape to both operands); `Shape` folds to a
/// constant, which leaves those ops dead, and a dead op that mixes a
/// batch-sized constant with data would still stop pipe-microbatch.
static void eraseDeadOps(func::FuncOp func) {
  SmallVector<Operation *> ops;
  for (Operation &op : func.getBody().front())
    ops.push_back(&op);
  for (Operation *op : llvm::reverse(ops))
    if (isOpTriviallyDead(op))
      op->erase();
}

OwningOpRef<ModuleOp> pipewave::importOnnxModelFromBuffer(
    const char *data, size_t size, const std::string &path,
    MLIRContext &context, const OnnxImportOptions &options,
    std::string &error) {
  auto fail = [&](const Twine &msg) -> OwningOpRef<ModuleOp> {
    error = msg.str();
    return {};
  };
  onnx::ModelProto model;
  if (size > (size_t)INT32_MAX || !model.ParseFromArray(data, (int)size) ||
      !model.has_graph() || model.opset_import_size() == 0)
    return fail("'" + path +
                "' is not a valid ONNX model (truncated or corrupt file)");
  std::string modelDir = llvm::sys::path::parent_path(path).str();
  if (modelDir.empty())
    modelDir = ".";
  std::string fileName = llvm::sys::path::filename(path).str();

  // External data must stay inside the model's folder. The checker looks
  // external files up relative to the working directory: it checks a copy
  // whose locations are the resolved paths.
  onnx::ModelProto withPaths;
  bool external = false;
  for (const auto &t : model.graph().initializer()) {
    if (t.data_location() != onnx::TensorProto::EXTERNAL)
      continue;
    std::string resolved, err;
    if (!externalDataPath(t, modelDir, resolved, err))
      return fail(err);
    external = true;
  }
  if (external) {
    withPaths = model;
    for (auto &t : *withPaths.mutable_graph()->mutable_initializer())
      if (t.data_location() == onnx::TensorProto::EXTERNAL) {
        std::string resolved, err;
        (void)externalDataPath(t, modelDir, resolved, err);
        for (auto &kv : *t.mutable_external_data())
          if (kv.key() == "location")
            kv.set_value(resolved);
      }
  }

  // Check, convert old opsets to 13 and infer shapes. libonnx reports errors
  // with exceptions.
  auto firstLine = [](const char *what) {
    return StringRef(what).split('\n').first.str();
  };
  try {
    onnx::checker::check_model(external ? withPaths : model);
  } catch (const std::exception &e) {
    return fail("'" + path +
                "' fails the ONNX checker: " + firstLine(e.what()));
  } catch (...) {
    return fail("'" + path + "' fails the ONNX checker");
  }
  // Before libonnx's converter and shape inference see the graph (they
  // trust it): every op must be one the importer maps and every graph output
  // must be defined.
  {
    const onnx::GraphProto &g = model.graph();
    std::set<std::string> defined;
    for (const auto &in : g.input())
      defined.insert(in.name());
    for (const auto &t : g.initializer())
      defined.insert(t.name());
    for (auto [idx, node] : llvm::enumerate(g.node())) {
      std::string nodeName = node.name().empty()
                                 ? node.op_type() + "_" + std::to_string(idx)
                                 : node.name();
      bool otherDomain = !node.domain().empty() && node.domain() != "ai.onnx";
      if (otherDomain || !opTable().count(node.op_type()))
        return fail("unsupported op '" +
                    (otherDomain ? node.domain() + "." : std::string()) +
                    node.op_type() + "' (node '" + nodeName + "', opset " +
                    Twine(defaultOpset(model)) + ")");
      for (const std::string &out : node.output())
        defined.insert(out);
    }
    for (const auto &out : g.output())
      if (!defined.count(out.name()))
        return fail("graph output '" + out.name() +
                    "' is not produced by any node");
  }
  if (defaultOpset(model) < 13) {
    try {
      onnx::ModelProto converted =
          onnx::version_conversion::ConvertVersion(model, 13);
      model = std::move(converted);
    } catch (...) {
      // Keep the original opset; the node importers handle both forms.
    }
  }
  try {
    onnx::shape_inference::InferShapes(model);
  } catch (const std::exception &e) {
    return fail("ONNX shape inference failed: " + firstLine(e.what()));
  } catch (...) {
    return fail("ONNX shape inference failed");
  }

  context.loadDialect<func::FuncDialect, tosa::TosaDialect>();
  OpBuilder b(&context);
  Location fileLoc = FileLineColLoc::get(&context, fileName, 0, 0);
  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  Importer im(&context, b);
  im.opset = defaultOpset(model);
  const onnx::GraphProto &g = model.graph();

  // Initializers: float tensors of rank >= 1 are parameters, the rest are
  // compile-time constants.
  std::map<std::string, const onnx::TensorProto *> inits;
  for (const auto &t : g.initializer())
    inits[t.name()] = &t;
  std::vector<Param> params;
  for (const auto &t : g.initializer()) {
    std::string bytes, err;
    if (!tensorBytes(t, modelDir, bytes, err))
      return fail(err);
    if (!convertElementType(&context, t.data_type()))
      return fail("initializer '" + t.name() + "' has an unsupported type");
    bool isFloat =
        llvm::isa<FloatType>(convertElementType(&context, t.data_type()));
    if (isFloat && t.dims_size() > 0) {
      params.push_back(
          Param{t.name(), t.data_type(),
                SmallVector<int64_t>(t.dims().begin(), t.dims().end()),
                std::move(bytes)});
    } else {
      im.constants[t.name()] = toAttr(&context, t, bytes);
    }
  }

  // Data inputs (graph inputs that are not initializers).
  SmallVector<Type> argTypes;
  SmallVector<std::string> argNames;
  SmallVector<bool> argIsParam;
  for (const auto &in : g.input()) {
    if (inits.count(in.name()))
      continue;
    if (!in.type().has_tensor_type())
      return fail("input '" + in.name() + "' is not a tensor");
    const auto &tt = in.type().tensor_type();
    Type e = convertElementType(&context, tt.elem_type());
    if (!e)
      return fail("input '" + in.name() + "' has an unsupported element type");
    SmallVector<int64_t> dims;
    for (auto [i, d] : llvm::enumerate(tt.shape().dim())) {
      if (d.has_dim_value() && d.dim_value() == 0) {
        return fail("input '" + in.name() + "' is empty (dimension " +
                    Twine(i) + " is 0); empty tensors are not supported");
      } else if (d.has_dim_value() && d.dim_value() > 0) {
        dims.push_back(d.dim_value());
      } else if (i == 0 && options.batchSize > 0) {
        dims.push_back(options.batchSize);
      } else {
        std::string sym = d.has_dim_param() ? " ('" + d.dim_param() + "')" : "";
        if (i == 0)
          return fail("input '" + in.name() + "' has a dynamic dimension 0" +
                      sym + "; pass --batch-size N to fix it");
        return fail("input '" + in.name() + "' has a dynamic dimension " +
                    Twine(i) + sym +
                    " that cannot be resolved (only the batch dimension 0 "
                    "can be fixed with --batch-size N)");
      }
    }
    argTypes.push_back(RankedTensorType::get(dims, e));
    argNames.push_back(in.name());
    argIsParam.push_back(false);
  }
  for (const Param &p : params) {
    argTypes.push_back(
        RankedTensorType::get(p.dims, convertElementType(&context, p.dtype)));
    argNames.push_back(p.name);
    argIsParam.push_back(true);
  }

  b.setInsertionPointToEnd(module->getBody());
  auto func =
      func::FuncOp::create(b, fileLoc, "main", b.getFunctionType(argTypes, {}));
  Block *entry = func.addEntryBlock();
  for (auto [i, name] : llvm::enumerate(argNames)) {
    pipe::setNameArgAttr(func, i, b.getStringAttr(name));
    if (argIsParam[i])
      pipe::setParamArgAttr(func, i);
    im.values[name] = entry->getArgument(i);
  }
  b.setInsertionPointToEnd(entry);

  // Nodes, in (topological) graph order.
  OpTable &table = opTable();
  for (auto [idx, node] : llvm::enumerate(g.node())) {
    std::string nodeName = node.name().empty()
                               ? node.op_type() + "_" + std::to_string(idx)
                               : node.name();
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      return fail("unsupported op '" + node.domain() + "." + node.op_type() +
                  "' (node '" + nodeName + "', opset " + Twine(im.opset) + ")");
    auto it = table.find(node.op_type());
    if (it == table.end())
      return fail("unsupported op '" + node.op_type() + "' (node '" + nodeName +
                  "', opset " + Twine(im.opset) + ")");
    im.loc = NameLoc::get(b.getStringAttr(nodeName + ":" + node.op_type()),
                          FileLineColLoc::get(&context, fileName, idx + 1, 0));
    if (failed(it->second(im, node)) || !im.errorText.empty())
      return fail(
          fileName + ": node '" + nodeName + "' (" + node.op_type() +
          ", opset " + Twine(im.opset) + "): " +
          (im.errorText.empty() ? std::string("cannot import") : im.errorText));
    for (const std::string &out : node.output()) {
      if (!out.empty() && !im.values.count(out) && !im.constants.count(out))
        return fail(fileName + ": node '" + nodeName + "' (" + node.op_type() +
                    "): output '" + out + "' not produced");
      auto v = im.values.find(out);
      if (v != im.values.end() &&
          Importer::type(v->second).getNumElements() == 0)
        return fail(fileName + ": node '" + nodeName + "' (" + node.op_type() +
                    ", opset " + Twine(im.opset) +
                    "): empty tensors are not supported (output '" + out +
                    "' has a zero-size dimension)");
    }
  }

  // Results; a single scalar float output (the loss) goes first.
  im.loc = fileLoc;
  SmallVector<Value> results;
  SmallVector<std::string> resultNames;
  for (const auto &out : g.output()) {
    Node fake;
    fake.add_input(out.name());
    Value v = im.input(fake, 0);
    if (!v)
      return fail(
          "graph output '" + out.name() + "': " +
          (im.errorText.empty() ? std::string("not defined") : im.errorText));
    // An output that is an input or a constant gets an operation of its own
    // (a graph of only those still compiles to something that runs).
    if (llvm::isa<BlockArgument>(v) || v.getDefiningOp<tosa::ConstOp>())
      v = tosa::IdentityOp::create(b, fileLoc, v.getType(), v);
    results.push_back(v);
    resultNames.push_back(out.name());
  }
  auto isLoss = [](Value v) {
    auto t = llvm::cast<RankedTensorType>(v.getType());
    return t.getRank() == 0 && llvm::isa<FloatType>(t.getElementType());
  };
  if (llvm::count_if(results, isLoss) == 1) {
    auto it = llvm::find_if(results, isLoss);
    size_t at = it - results.begin();
    std::rotate(results.begin(), it, it + 1);
    std::rotate(resultNames.begin(), resultNames.begin() + at,
                resultNames.begin() + at + 1);
  }
  func::ReturnOp::create(b, fileLoc, results);
  func.setType(b.getFunctionType(argTypes, ValueRange(results).getTypes()));
  // Results are named after the graph outputs (the runtime's --out files).
  for (auto [i, name] : llvm::enumerate(resultNames))
    pipe::setNameResultAttr(func, i, b.getStringAttr(name));

  eraseDeadOps(func);

  if (failed(verify(*module)))
    return fail("the imported module does not verify (importer bug)");

  if (!options.weightsPath.empty()) {
    std::string err;
    if (!writeSafetensors(options.weightsPath, params, err))
      return fail(err);
  }
  return module;
}
